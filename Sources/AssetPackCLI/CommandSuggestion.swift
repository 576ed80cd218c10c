import ArgumentParser

/// The error for a command name that is not one: `unknown command 'expnad'; did you mean 'expand'?`.
struct CommandSuggestion: Error, CustomStringConvertible {
    let name: String
    let suggestion: String?
    let commands: [String]

    var description: String {
        if let suggestion { return "Unknown command '\(name)'; did you mean '\(suggestion)'?" }
        return "Unknown command '\(name)'; the commands are \(commands.joined(separator: ", "))."
    }

    /// The error when the first argument (the command's place) is a word that names no command, or nil.
    static func unknownCommand(in arguments: [String], commands: [String]) -> ValidationError? {
        guard let first = arguments.first, !first.hasPrefix("-"), !commands.contains(first) else { return nil }
        let nearest = commands.map { ($0, distance(first.lowercased(), $0)) }.min { $0.1 < $1.1 }
        let close = nearest.flatMap { $0.1 <= max(1, min(2, first.count / 3)) || $0.0.hasPrefix(first.lowercased()) ? $0.0 : nil }
        let error = CommandSuggestion(name: first, suggestion: close, commands: commands.filter { $0 != "help" })
        return ValidationError(error.description)
    }

    /// The error for the first `--option` of `arguments` that `command` does not have, or nil: a usage
    /// error that argument-parser reports as something else (a mistyped `--too` as the missing `--to`).
    /// The command's options are the `--names` of its help text.
    static func unknownOption(in arguments: [String], command: any ParsableCommand.Type) -> ValidationError? {
        let help = command.helpMessage(includeHidden: true, columns: 1_000)
        var known = Set<String>()
        for word in help.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }) where word.hasPrefix("--") {
            known.insert(String(word))
        }
        for argument in arguments.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") && argument.count > 2 {
            let name = String(argument.prefix { $0 != "=" })
            guard !known.contains(name) else { continue }
            let nearest = known.map { ($0, distance(name, $0)) }.min { ($0.1, $0.0) < ($1.1, $1.0) }
            let close = nearest.flatMap { $0.1 <= 2 ? $0.0 : nil }
            return ValidationError("Unknown option '\(name)'." + (close.map { " Did you mean '\($0)'?" } ?? ""))
        }
        return nil
    }

    /// The edit distance between `a` and `b` (insertions, deletions, substitutions and swaps of two
    /// neighbours each cost one).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
