import Foundation
import Testing
import TestSupport

/// The shell completions and the man page under `Tools/CLI` are generated from the command definitions
/// (`Tools/CLI/generate.sh`); these tests fail when a command changed and they were not regenerated, and
/// check that the completions complete paths.
@Suite struct ShippedFilesCLITests {
    let tool = builtProduct("assetpack")

    /// `Tools/CLI` of this checkout.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tools/CLI").path

    static let regenerate = "out of date: run Tools/CLI/generate.sh"

    @Test(arguments: [("bash", "completions/assetpack.bash"), ("zsh", "completions/_assetpack"), ("fish", "completions/assetpack.fish")])
    func completionsAreUpToDate(shell: String, file: String) throws {
        let generated = try run(tool, ["--generate-completion-script", shell])
        #expect(generated.status == 0)
        let shipped = try String(contentsOfFile: Self.folder + "/" + file, encoding: .utf8)
        #expect(generated.stdout == shipped, "\(file) \(Self.regenerate)")
    }

    @Test func theManPageWasMadeFromTheseCommands() throws {
        let page = try String(contentsOfFile: Self.folder + "/man/assetpack.1", encoding: .utf8)
        let hash = try run("/bin/sh", ["-c", "\"$0\" --experimental-dump-help | { sha256sum 2>/dev/null || shasum -a 256; } | cut -c1-64", tool])
        let recorded = page.split(separator: "\n").dropFirst().first
        #expect(recorded == ".\\\" dump-help sha256 \(hash.stdout.dropLast()); regenerate with Tools/CLI/generate.sh",
                "the man page is \(Self.regenerate)")
        #expect(page.contains(".Sh NAME\n.Nm assetpack\n"))
        #expect(page.contains("  77   refused: unsafe names, conflicts, links, unsupported entries, limits"))
    }

    @Test func bashCompletesFoldersForTheDestinationAndArchivesForList() throws {
        let scratch = try TemporaryDirectory("cli-completion")
        try FileManager.default.createDirectory(atPath: scratch.file("dirA"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("dirB"), withIntermediateDirectories: true)
        try scratch.write("app.zip", [1])
        try scratch.write("notes.txt", [1])
        // Calls the completion function as bash does for `assetpack WORDS…` with the cursor at the end.
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let script = """
                source "$0"
                COMP_WORDS=(assetpack \(quoted)); COMP_CWORD=\(words.count)
                COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
                _assetpack assetpack "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try run("/bin/bash", ["-c", script, Self.folder + "/completions/assetpack.bash"], cwd: scratch.path)
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init).sorted()
        }
        #expect(try complete(["expand", "-d", "di"]) == ["dirA", "dirB"])
        #expect(try complete(["expand", "--to", ""]) == ["dirA", "dirB"])
        #expect(try complete(["list", ""]) == ["app.zip", "dirA", "dirB"])
        #expect(try complete(["exp"]) == ["expand"])
    }
}
