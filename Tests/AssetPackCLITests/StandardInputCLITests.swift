import Foundation
import Testing
import TestSupport

/// `-` and pipes, as tar and unzip users type them: `cat app.zip | assetpack expand - --to DIR` (or
/// `/dev/stdin`) and `list -` read the zip from a real pipe; `build --archive -` is refused in one line and
/// never makes a file named `-`.
@Suite struct StandardInputCLITests {
    let tool = builtProduct("assetpack")

    /// A scratch folder holding `app.zip`, a plain zip of `a.txt` and `d/b.txt`.
    static func scratch(_ label: String) throws -> TemporaryDirectory {
        let scratch = try TemporaryDirectory(label)
        try RawZip([RawZip.file("a.txt", Array("hello\n".utf8)), RawZip.file("d/b.txt", Array("x\n".utf8))])
            .write(to: scratch.file("app.zip"))
        return scratch
    }

    /// Runs `command` in a shell in `scratch`, with the zip piped in by `cat`.
    func piped(_ command: String, in scratch: TemporaryDirectory) throws -> CommandResult {
        try run("/bin/sh", ["-c", "cat app.zip | '\(tool)' \(command)"], cwd: scratch.path)
    }

    @Test(arguments: ["-", "/dev/stdin"]) func expandReadsAZipFromAPipe(_ input: String) throws {
        let scratch = try Self.scratch("cli-stdin-expand")
        let expanded = try piped("expand \(input) --to out", in: scratch)
        #expect(expanded.status == 0, "\(expanded.stderr)")
        #expect(expanded.stdout.hasPrefix("expanded 2 files (8 B) into \(scratch.file("out")) in "))
        #expect(ExpandCLITests.read(scratch.file("out")) == ["a.txt": Array("hello\n".utf8), "d/b.txt": Array("x\n".utf8)])
        let again = try piped("expand \(input) --to out", in: scratch)
        #expect(again.stdout == scratch.file("out") + " is up to date\n")
        let json = try piped("expand \(input) --to out --json", in: scratch)
        #expect(json.stdout.contains(#""source":"\#(input)""#))
    }

    @Test func listReadsAZipFromAPipe() throws {
        let scratch = try Self.scratch("cli-stdin-list")
        let listed = try piped("list -", in: scratch)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == """
                Length   Compressed  Method        CRC-32    Name
                     6            6  stored (0)    363a3020  a.txt
                     2            2  stored (0)    46ea081f  d/b.txt
                     8                                         2 entries

            """)
    }

    @Test func checkReadsAZipFromAPipe() throws {
        let scratch = try Self.scratch("cli-stdin-check")
        let checked = try piped("check -", in: scratch)
        #expect(checked.status == 1)
        #expect(checked.stderr == "assetpack: error: stdin: holds no assetpack bundle (no assetpack-meta/manifest.json at any depth)\n")
    }

    @Test func anEmptyPipeSaysItHeldNothing() throws {
        let scratch = try Self.scratch("cli-stdin-empty")
        let result = try run(tool, ["expand", "-", "--to", "out"], cwd: scratch.path, stdin: [])
        #expect(result.status == 65)
        #expect(result.stderr == "assetpack: error: stdin: not a zip archive: 0 bytes is too short for an end record\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
    }

    @Test(arguments: ["--archive", "-o"]) func buildNeverWritesAFileNamedDash(_ option: String) throws {
        let scratch = try Self.scratch("cli-stdin-build")
        try ExpandCLITests.write(["a.txt": [1]], to: scratch.file("src"))
        let result = try run(tool, ["build", "src", option, "-"], cwd: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr == "assetpack: error: \(option) -: a build is written into a temporary file renamed to its name "
                + "when complete, never to stdout; give a name (and cat the zip into a pipe). (see 'assetpack build --help')\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted() == ["app.zip", "src"])
    }
}
