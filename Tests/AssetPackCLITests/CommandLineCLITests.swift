import Foundation
import Testing
import TestSupport

/// What the command line promises scripts and people (README, "The command line"): the exit status of
/// each class of failure, `--json` lines of schema 1, the familiar spellings, `--verbose`, and a
/// suggestion for a mistyped command. Each test runs the built binary and checks its exact output.
@Suite struct CommandLineCLITests {
    let tool = builtProduct("assetpack")

    /// `line` with its `"seconds"` value replaced by 0 (the one figure that differs from run to run).
    static func withoutSeconds(_ line: String) -> String {
        line.replacingOccurrences(of: #""seconds":[0-9.e+-]+"#, with: #""seconds":0"#, options: .regularExpression)
    }

    /// A source tree of ``ExpandCLITests/tree`` under `scratch/src`, packed into `scratch/app.bundle`;
    /// returns the bundle's identity hash.
    func bundle(_ scratch: TemporaryDirectory) throws -> String {
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("src"))
        let built = try run(tool, ["build", "src", "-o", "app.bundle", "--threshold", "4K", "--json"], cwd: scratch.path)
        #expect(built.status == 0, "\(built.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(built.stdoutBytes)) as? [String: Any])
        return try #require(report["identity"] as? String)
    }

    static var treeBytes: Int { ExpandCLITests.tree.values.reduce(0) { $0 + $1.count } }

    // MARK: - --json

    @Test func expandJSONIsOneLineOfSchemaOneWithEveryFigure() throws {
        let scratch = try TemporaryDirectory("cli-json-expand")
        let identity = try bundle(scratch)
        let first = try run(tool, ["expand", "app.bundle", "--to", "out", "--json"], cwd: scratch.path)
        #expect(first.status == 0, "\(first.stderr)")
        let files = ExpandCLITests.tree.count, bytes = Self.treeBytes
        #expect(Self.withoutSeconds(first.stdout) == """
            {"bytes":\(bytes),"bytesResumed":0,"bytesWritten":\(bytes),"command":"expand","destination":"\(scratch.file("out"))",\
            "files":\(files),"filesLinked":0,"filesResumed":0,"filesWritten":\(files),\
            "identity":"\(identity)","ok":true,"schema":1,"seconds":0,\
            "source":"\(scratch.file("app.bundle"))","unknownDeleted":[],"unknownKept":[],"upToDate":false}

            """)
        #expect(first.stderr.isEmpty)
        let again = try run(tool, ["expand", "app.bundle", "-d", "out", "--json"], cwd: scratch.path)
        #expect(Self.withoutSeconds(again.stdout) == """
            {"bytes":0,"bytesResumed":0,"bytesWritten":0,"command":"expand","destination":"\(scratch.file("out"))",\
            "files":0,"filesLinked":0,"filesResumed":0,"filesWritten":0,\
            "identity":"\(identity)","ok":true,"schema":1,"seconds":0,\
            "source":"\(scratch.file("app.bundle"))","unknownDeleted":[],"unknownKept":[],"upToDate":true}

            """)
    }

    @Test func anUpgradeReportsTheUnchangedFilesInTextAndJSON() throws {
        let scratch = try TemporaryDirectory("cli-json-upgrade")
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("v1"))
        var v2 = ExpandCLITests.tree
        v2["readme.txt"] = Array("changed\n".utf8)
        try ExpandCLITests.write(v2, to: scratch.file("v2"))
        #expect(try run(tool, ["expand", "v1", "-C", "out"], cwd: scratch.path).status == 0)
        let upgrade = try run(tool, ["expand", "v2", "-C", "out", "--json"], cwd: scratch.path)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(upgrade.stdoutBytes)) as? [String: Any])
        #expect(report["filesLinked"] as? Int == ExpandCLITests.tree.count - 1)
        #expect(report["filesWritten"] as? Int == 1)
        #expect((report["identity"] as? String)?.hasPrefix("assetpack-1 tree ") == true)
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("v1"))
        let back = try run(tool, ["expand", "v1", "-C", "out"], cwd: scratch.path)
        #expect(back.stdout.hasSuffix(" (\(ExpandCLITests.tree.count - 1) unchanged, 1 written)\n"), "\(back.stdout)")
    }

    @Test func buildJSONHasEveryFigureOfTheSummaryWithAbsolutePaths() throws {
        let scratch = try TemporaryDirectory("cli-json-build")
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("src"))
        let result = try run(tool, ["build", "src", "--archive", "all.zip", "--json"], cwd: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        #expect(Set(report.keys) == ["schema", "command", "ok", "source", "output", "form", "identity", "files", "directories",
                                     "packed", "stored", "reused", "bytesIn", "bytesOut", "seconds", "ratio"])
        #expect(report["schema"] as? Int == 1 && report["command"] as? String == "build" && report["ok"] as? Bool == true)
        #expect(report["source"] as? String == scratch.file("src") && report["output"] as? String == scratch.file("all.zip"))
        #expect(report["form"] as? String == "archive" && report["files"] as? Int == ExpandCLITests.tree.count)
        #expect(report["bytesIn"] as? Int == Self.treeBytes)
    }

    @Test func aFailureWithJSONIsAJSONLineWithTheExitStatus() throws {
        let scratch = try TemporaryDirectory("cli-json-error")
        let missing = try run(tool, ["expand", "nothing-here", "--to", "out", "--json"], cwd: scratch.path)
        #expect(missing.status == 66)
        #expect(missing.stderr.isEmpty)
        #expect(missing.stdout == """
            {"command":"expand","error":{"class":"not-found","code":"not-found",\
            "message":"\(scratch.file("nothing-here")): no such file or folder",\
            "path":"\(scratch.file("nothing-here"))"},"exitStatus":66,"ok":false,"schema":1}

            """)
        let usage = try run(tool, ["expand", "--to", "out", "--jobs", "0", "--json"], cwd: scratch.path)
        #expect(usage.status == 64)
        #expect(usage.stdout == #"{"command":"expand","error":{"class":"usage","code":"usage","message":"--jobs must be at least 1, not 0."},"exitStatus":64,"ok":false,"schema":1}"# + "\n")
        let mistyped = try run(tool, ["expnad", "--json"])
        #expect(mistyped.stdout == #"{"command":"assetpack","error":{"class":"usage","code":"usage","message":"Unknown command 'expnad'; did you mean 'expand'?"},"exitStatus":64,"ok":false,"schema":1}"# + "\n")
    }

    /// A failure about an entry of a source names the source on disk as `path` (absolute; not the entry
    /// made absolute against the working directory) and the entry apart: the archive's entry, the file of the folder, or the archive
    /// stored in the source that the problem is in, whose own entry the message names after it.
    @Test func aFailureAboutAnEntryHasTheSourceAsPathAndTheEntryApart() throws {
        let scratch = try TemporaryDirectory("cli-json-entry")
        let inner = RawZip([RawZip.file("../EVIL_inner.txt", [6])]).bytes
        try RawZip([RawZip.file("a.txt", [1]), RawZip.file("a.txt", [2])]).write(to: scratch.file("dup.zip"))
        try RawZip([RawZip.file("o.txt", [1]), RawZip.file("pk/inner.zip", inner)]).write(to: scratch.file("stored.zip"))
        try RawZip([RawZip.file("o.txt", [1]), try RawZip.deflated("pk/inner.zip", inner)]).write(to: scratch.file("deflated.zip"))
        try RawZip([RawZip.file("fake.zip", Array("not a zip at all".utf8))]).write(to: scratch.file("fake.zip"))
        try ExpandCLITests.write(["top.txt": [1], "a/b/e.zip": inner], to: scratch.file("tree"))
        let cases: [(source: String, entry: String, message: String)] = [
            ("dup.zip", "a.txt", "dup.zip: the name appears twice: \"a.txt\" and \"a.txt\""),
            ("stored.zip", "pk/inner.zip", "stored.zip: pk/inner.zip: entry \"../EVIL_inner.txt\" has an unsafe name: '..' component"),
            ("deflated.zip", "pk/inner.zip", "deflated.zip: pk/inner.zip: entry \"../EVIL_inner.txt\" has an unsafe name: '..' component"),
            ("fake.zip", "fake.zip", "fake.zip: fake.zip: not a zip archive: 16 bytes is too short for an end record"),
            ("tree", "a/b/e.zip", "tree: a/b/e.zip: entry \"../EVIL_inner.txt\" has an unsafe name: '..' component"),
        ]
        for (source, entry, message) in cases {
            let result = try run(tool, ["expand", source, "--to", "out", "--json"], cwd: scratch.path)
            let line = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
            let error = try #require(line["error"] as? [String: Any], "\(result.stdout)")
            #expect(error["path"] as? String == scratch.file(source), "\(result.stdout)")
            #expect(error["entry"] as? String == entry, "\(result.stdout)")
            #expect(error["message"] as? String == scratch.path + "/" + message, "\(result.stdout)")
            let text = try run(tool, ["expand", scratch.file(source), "--to", scratch.file("out")])
            #expect(text.stderr == "assetpack: error: \(scratch.path)/\(message)\n")
        }
    }

    /// `--root` must be a folder of the source as a relative path: anything else is a usage error naming
    /// the option, before the source is opened.
    @Test(arguments: [("/assets/data", "absolute path"), ("../", "'..' component"), (".", "'.' component")])
    func aRootThatIsNoRelativeFolderIsAUsageError(root: String, reason: String) throws {
        let scratch = try TemporaryDirectory("cli-root")
        try RawZip([RawZip.file("assets/data/a.txt", [1])]).write(to: scratch.file("app.zip"))
        let result = try run(tool, ["expand", "app.zip", "--to", "out", "--root", root], cwd: scratch.path)
        #expect(result.status == 64)
        #expect(result.stderr == "assetpack: error: --root \"\(root)\": \(reason); give a folder of the archive or folder such as "
                + "assets/data, or leave --root out for all of it (see 'assetpack expand --help')\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
    }

    // MARK: - Exit status

    @Test func eachClassOfFailureHasItsExitStatus() throws {
        let scratch = try TemporaryDirectory("cli-exit")
        try ExpandCLITests.write(["ok.txt": [1]], to: scratch.file("src"))
        try scratch.write("not-a-zip.zip", text: "text")
        try Data(RawZip([RawZip.file("../evil.txt", [1])]).bytes).write(to: scratch.url("evil.zip"))
        try scratch.write("file", text: "a file")
        var bomb = try RawZip.deflated("zeros.bin", [UInt8](repeating: 0, count: 60_000))
        bomb.uncompressedSize = 0xFFFF_FFF0  // 4 GiB declared from a few hundred bytes
        try RawZip([bomb]).write(to: scratch.file("bomb.zip"))
        let cases: [(arguments: [String], status: Int32)] = [
            (["expand", "evil.zip", "--to", "out", "--root", "/x"], 64),  // usage: a root that is no folder of it
            (["list", "src"], 64),                                      // usage: a folder that is no bundle
            (["verify", "src"], 64),
            (["verify", "bomb.zip"], 77),                               // refused: declared sizes past the ratio
            (["expand", "bomb.zip", "--to", "out"], 77),
            (["expand", "--to"], 64),                                   // usage: a missing value
            (["expand", "src", "--to", "out", "--bogus"], 64),          // usage: an unknown option
            (["expand", "src", "--to", "file"], 64),                    // usage: a destination that is a file
            (["list", "not-a-zip.zip"], 65),                            // damaged input
            (["expand", "missing", "--to", "out"], 66),                 // not found
            (["expand", "evil.zip", "--to", "out"], 77),                // refused by policy
            (["expand", "src", "--to", "file/inside"], 74),             // I/O: a path through a file
        ]
        for (arguments, status) in cases {
            let result = try run(tool, arguments, cwd: scratch.path)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to mount a small tmpfs"))
    func noSpaceIsItsOwnExitStatus() throws {
        let scratch = try TemporaryDirectory("cli-exit-space")
        try FileManager.default.createDirectory(atPath: scratch.file("small"), withIntermediateDirectories: true)
        #expect(try run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", scratch.file("small")]).status == 0)
        defer { _ = try? run("/bin/umount", ["-l", scratch.file("small")]) }
        var random = SeededRandom(seed: 3)
        try ExpandCLITests.write(["big.bin": random.bytes(1_000_000)], to: scratch.file("src"))
        let result = try run(tool, ["expand", "src", "--to", "small/assets"], cwd: scratch.path)
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("assetpack: error: ") && result.stderr.contains("free space"))
    }

    @Test func helpListsTheExitStatuses() throws {
        let help = try run(tool, ["--help"], environment: ["COLUMNS": "80"])
        #expect(help.stdout.contains("""
            Every failure prints one line on stderr naming the file and the reason (with
            --json, one JSON line on stdout instead) and exits with the status of its
            class:

              0    success
              1    differs (check, status, expand --verify), or a failure of no other class
              64   usage: an unknown command or option, a bad value, an unusable path
              65   damaged input: an archive, manifest or file that fails its checks
              66   the input does not exist
              69   network: a server out of reach or failing after retries (it resumes)
              74   reading or writing failed
              75   not enough free space (free some and run again: it resumes)
              77   refused: unsafe names, conflicts, links, unsupported entries, limits
              79   untrusted: a server's bundle failed its signature or pinned identity
              130  interrupted (Ctrl-C): run the same command again to resume
            """), "\(help.stdout)")
    }

    // MARK: - Spellings

    @Test func aMistypedCommandGetsASuggestion() throws {
        let close = try run(tool, ["expnad", "app.bundle", "--to", "out"])
        #expect(close.status == 64)
        #expect(close.stdout.isEmpty)
        #expect(close.stderr == "assetpack: error: Unknown command 'expnad'; did you mean 'expand'? (see 'assetpack --help')\n")
        let far = try run(tool, ["frobnicate"])
        #expect(far.status == 64)
        #expect(far.stderr.hasPrefix("assetpack: error: Unknown command 'frobnicate'; the commands are build, expand, list, verify"))
        #expect(try run(tool, ["bild", "--help"]).stderr.hasPrefix("assetpack: error: Unknown command 'bild'; did you mean 'build'?"))
    }

    /// A command-line error is one line on stderr, as every failure is, naming the command's help.
    @Test(arguments: [
        (["expand", "x.zip", "--no-snyc", "--to", "out"], "Unknown option '--no-snyc'. Did you mean '--no-sync'?"),
        // A mistyped required option is the unknown option, not the missing one it was meant to be.
        (["expand", "x.zip", "--too", "out"], "Unknown option '--too'. Did you mean '--to'?"),
        (["build", "assets", "--outptu=out"], "Unknown option '--outptu'. Did you mean '--output'?"),
        (["expand", "x.zip", "--jobs", "-1", "--to", "out"], "Missing value for '--jobs <n>'"),
        (["list"], "Missing expected argument"),
    ])
    func aCommandLineErrorIsOneLine(arguments: [String], message: String) throws {
        let result = try run(tool, arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("assetpack: error: " + message), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(see 'assetpack \(arguments[0]) --help')\n"), "\(result.stderr)")
    }

    @Test func valueNamesAreTheSameAcrossCommands() throws {
        let expand = try run(tool, ["expand", "--help"], environment: ["COLUMNS": "200"])
        // With the options of a bundle on a server, the synopsis is argument-parser's short form.
        #expect(expand.stdout.contains("USAGE: assetpack expand [<options>] [<bundle>] --to <dir>\n"))
        for option in ["--root <prefix>", "--jobs <n>", "--public-key <keyfile>", "--identity <hex>", "--allow-http"] {
            #expect(expand.stdout.contains("  " + option), "\(option)")
        }
        #expect(expand.stdout.contains("  -d, -C, --to <dir>"))
        let build = try run(tool, ["build", "--help"], environment: ["COLUMNS": "200"])
        for option in ["-o, --output <dir>", "--archive <file>", "--threshold <size>", "--level <n>", "--jobs <n>", "--exclude <glob>",
                       "-v, --verbose", "-q, --quiet"] {
            #expect(build.stdout.contains("  " + option), "\(option)")
        }
        for help in [expand.stdout, build.stdout, try run(tool, ["list", "--help"]).stdout] {
            #expect(help.range(of: "<[A-Z]", options: .regularExpression) == nil, "an upper-case value name: \(help)")
        }
    }

    @Test func verboseListsEachFileWrittenAndDashDWorksLikeTo() throws {
        let scratch = try TemporaryDirectory("cli-verbose")
        try ExpandCLITests.write(ExpandCLITests.tree, to: scratch.file("src"))
        let result = try run(tool, ["expand", "src", "-d", "out", "-v", "--jobs", "1"], cwd: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        var lines = result.stdout.split(separator: "\n").map(String.init)
        let summary = lines.removeLast()
        #expect(lines.sorted() == ExpandCLITests.tree.keys.sorted())
        #expect(summary.hasPrefix("expanded \(ExpandCLITests.tree.count) files ("))
        #expect(result.stderr.isEmpty, "nothing animated when stderr is not a terminal")
        #expect(ExpandCLITests.digest(ExpandCLITests.read(scratch.file("out"))) == ExpandCLITests.digest(ExpandCLITests.tree))

        let built = try run(tool, ["build", "src", "-o", "b.bundle", "-v", "--jobs", "1"], cwd: scratch.path)
        var packed = built.stdout.split(separator: "\n").map(String.init)
        packed.removeLast(3)  // the summary
        #expect(packed.sorted() == ExpandCLITests.tree.keys.sorted())
        #expect(built.stderr.isEmpty)
        let both = try run(tool, ["expand", "src", "-d", "out", "-v", "--json"], cwd: scratch.path)
        #expect(both.status == 64)
    }
}
