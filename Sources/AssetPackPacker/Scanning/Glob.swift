import AssetPack

/// A shell wildcard for one file name, as `fnmatch` reads it without flags: `*` matches any run of
/// characters, `?` one character, `[abc]`, `[a-z]` and `[!a-z]` (or `[^a-z]`) one character of a set or
/// not of it, and `\` takes the next character literally. Case-sensitive, one Unicode scalar per character.
///
/// Used by ``ExcludePatterns`` for each `/`-separated part of a pattern.
struct Glob: Sendable, Hashable {
    /// One step of a pattern.
    enum Token: Sendable, Hashable {
        /// Exactly this character.
        case literal(Unicode.Scalar)
        /// `?`: any one character.
        case any
        /// `*`: any run of characters, the empty one included.
        case star
        /// `[...]`: one character inside (or, negated, outside) the ranges.
        case set([ClosedRange<UInt32>], negated: Bool)
    }

    /// The compiled pattern.
    let tokens: [Token]

    /// Compiles `pattern`.
    /// - Throws: `.invalidArgument` when a `[` is never closed or the pattern ends with a lone `\`.
    init(_ pattern: Substring) throws(AssetPackError) {
        var tokens: [Token] = []
        var scalars = pattern.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "*": if tokens.last != .star { tokens.append(.star) }
            case "?": tokens.append(.any)
            case "[": tokens.append(try Self.parseSet(&scalars, pattern: pattern))
            case "\\":
                guard let escaped = scalars.popFirst() else { throw Self.invalid(pattern, "ends with a lone \\") }
                tokens.append(.literal(escaped))
            default: tokens.append(.literal(scalar))
            }
        }
        self.tokens = tokens
    }

    /// True when `name` matches the whole pattern.
    /// - Complexity: O(*n* × *m*) in the worst case for *n* characters and *m* tokens; one pass without `*`.
    func matches(_ name: [Unicode.Scalar]) -> Bool {
        var (text, token) = (0, 0)
        var lastStar: (token: Int, text: Int)?
        while text < name.count {
            if token < tokens.count, tokens[token] == .star {
                lastStar = (token, text)
                token += 1
            } else if token < tokens.count, Self.accepts(tokens[token], name[text]) {
                (token, text) = (token + 1, text + 1)
            } else if let star = lastStar {
                // Let the last `*` take one more character and try the rest again.
                lastStar = (star.token, star.text + 1)
                (token, text) = (star.token + 1, star.text + 1)
            } else {
                return false
            }
        }
        while token < tokens.count, tokens[token] == .star { token += 1 }
        return token == tokens.count
    }

    /// True when `token` (not `*`) accepts `scalar`.
    private static func accepts(_ token: Token, _ scalar: Unicode.Scalar) -> Bool {
        switch token {
        case .literal(let wanted): wanted == scalar
        case .any: true
        case .star: false
        case .set(let ranges, let negated): ranges.contains { $0.contains(scalar.value) } != negated
        }
    }

    /// Reads a set after its `[`: an optional `!` or `^`, then characters and ranges up to `]` (a `]`
    /// right at the start is a member).
    private static func parseSet(_ scalars: inout Substring.UnicodeScalarView.SubSequence,
                                 pattern: Substring) throws(AssetPackError) -> Token {
        var negated = false
        if let first = scalars.first, first == "!" || first == "^" {
            negated = true
            scalars.removeFirst()
        }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while let scalar = scalars.popFirst() {
            if scalar == "]" && !first { return .set(ranges, negated: negated) }
            first = false
            let low = try member(scalar, &scalars, pattern: pattern)
            if scalars.first == "-", let afterDash = scalars.dropFirst().first, afterDash != "]" {
                scalars.removeFirst(2)
                let high = try member(afterDash, &scalars, pattern: pattern)
                ranges.append(min(low, high)...max(low, high))
            } else {
                ranges.append(low...low)
            }
        }
        throw invalid(pattern, "has a [ without its ]")
    }

    /// The value of one set member, reading past a `\` escape.
    private static func member(_ scalar: Unicode.Scalar, _ scalars: inout Substring.UnicodeScalarView.SubSequence,
                               pattern: Substring) throws(AssetPackError) -> UInt32 {
        guard scalar == "\\" else { return scalar.value }
        guard let escaped = scalars.popFirst() else { throw invalid(pattern, "has a [ without its ]") }
        return escaped.value
    }

    /// The error for a malformed pattern.
    static func invalid(_ pattern: some StringProtocol, _ reason: String) -> AssetPackError {
        AssetPackError(.invalidArgument, "exclude pattern \"\(pattern)\" \(reason)")
    }
}
