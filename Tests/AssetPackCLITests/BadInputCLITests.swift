import Foundation
import Testing
import TestSupport

/// Mistakes at the command line of `assetpack expand`: each ends with exit status 1 and exactly one stderr
/// line naming the file and the reason in plain words — never a system call's name — and leaves the folder
/// it was run in as it was (no destination, no parent folder made for it, no staging tree, no record).
@Suite struct BadInputCLITests {
    let tool = builtProduct("assetpack")

    /// A scratch folder holding `src/` (a folder with `a.txt` and `d/b.txt`), `app.apk` (the same files
    /// below `assets/`) and `file.txt`.
    static func scratch(_ label: String) throws -> TemporaryDirectory {
        let scratch = try TemporaryDirectory(label)
        try ExpandCLITests.write(["a.txt": [1], "d/b.txt": [2]], to: scratch.file("src"))
        try RawZip([RawZip.file("assets/a.txt", [1]), RawZip.file("assets/d/b.txt", [2])]).write(to: scratch.file("app.apk"))
        try scratch.write("file.txt", text: "a file")
        return scratch
    }

    struct Mistake: Sendable, CustomTestStringConvertible {
        let label: String
        let arguments: [String]
        /// The whole stderr line after `assetpack: error: `; `SCRATCH` stands for the scratch folder's path.
        let line: String
        var testDescription: String { label }
    }

    static let mistakes: [Mistake] = [
        Mistake(label: "a missing bundle", arguments: ["expand", "nothere.bundle", "--to", "out"],
                line: "nothere.bundle: no such file or folder"),
        Mistake(label: "a missing archive", arguments: ["expand", "missing.zip", "--to", "out"],
                line: "missing.zip: no such file or folder"),
        Mistake(label: "a source below a file", arguments: ["expand", "file.txt/app.apk", "--to", "out"],
                line: "file.txt/app.apk: no such file or folder"),
        Mistake(label: "an empty destination", arguments: ["expand", "src", "--to", ""],
                line: "the destination is an empty path; name a folder to create or replace"),
        Mistake(label: "a destination below a file", arguments: ["expand", "src", "--to", "file.txt/out"],
                line: "SCRATCH/file.txt: not a folder"),
        Mistake(label: "a misspelt root of an archive", arguments: ["expand", "app.apk", "--root", "asets", "--to", "new/deeper/out"],
                line: "app.apk: the archive has no folder \"asets\" (the root to expand)"),
        Mistake(label: "a root of an archive that is a file", arguments: ["expand", "app.apk", "--root", "assets/a.txt", "--to", "out"],
                line: "app.apk: the root \"assets/a.txt\" is a file in the archive, not a folder"),
        Mistake(label: "a misspelt root of a folder", arguments: ["expand", "src", "--root", "dd", "--to", "new/out"],
                line: "src/dd: no such folder"),
        Mistake(label: "a root of a folder that is a file", arguments: ["expand", "src", "--root", "a.txt", "--to", "out"],
                line: "src/a.txt: is a file, not a folder"),
        Mistake(label: "an archive root that holds no file", arguments: ["expand", "app.apk", "--to", "out", "--root", "assets/empty"],
                line: "app.apk (assets/empty/): holds no files, so there is nothing to expand (check the path and the root "
                    + "folder given; to expand an empty tree, allow it: --allow-empty)"),
    ]

    @Test(arguments: mistakes)
    func aMistakeIsOnePlainLine(_ mistake: Mistake) throws {
        let scratch = try Self.scratch("cli-bad-input")
        if mistake.label.contains("holds no file") {
            try RawZip([RawZip.file("assets/a.txt", [1]), RawZip.directory("assets/empty/sub/")]).write(to: scratch.file("app.apk"))
        }
        let before = HostileStage.allNames(scratch.path)
        let result = try run(tool, mistake.arguments, cwd: scratch.path)
        #expect(result.status == (mistake.label == "an empty destination" ? 64 : mistake.label.contains("below a file") && mistake.label.contains("destination") ? 74 : 66),
                "exit status by class (64 usage, 66 not found, 74 I/O): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        let line = mistake.line.replacingOccurrences(of: "SCRATCH", with: scratch.path)
        #expect(result.stderr == "assetpack: error: \(line)\n")
        #expect(!result.stderr.contains(" failed"), "a system call's name: \(result.stderr)")
        #expect(HostileStage.allNames(scratch.path) == before, "the run left something behind")
    }

    /// `check`'s exit statuses, as its help and the README give them: 1 for a problem found (a zip without a
    /// bundle), 65 for a file that is not a zip, 66 for a missing one, 64 for a folder.
    @Test(arguments: [("app.apk", Int32(1)), ("file.txt", 65), ("missing.apk", 66), ("src", 64)])
    func checkExitsWithTheDocumentedStatus(_ file: String, _ status: Int32) throws {
        let scratch = try Self.scratch("cli-bad-check")
        let result = try run(tool, ["check", file], cwd: scratch.path)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A name with a control character is shown as `ls -b` shows it, in the user's words (no `in ""` for the top).
    @Test func aControlCharacterInANameIsShownEscaped() throws {
        let scratch = try Self.scratch("cli-control-name")
        try ExpandCLITests.write(["tab\tname.txt": [1]], to: scratch.file("tabbed"))
        let result = try run(tool, ["build", "tabbed", "-o", "out.bundle"], cwd: scratch.path)
        #expect(result.status == 77)
        #expect(result.stderr == "assetpack: error: tabbed/tab\\tname.txt: unsafe name \"tab\\tname.txt\": control character\n")
    }

    /// A FIFO given as the source (or to `list` and `verify`) is refused at once with its name and what it is,
    /// never waited on (`open` of a FIFO without a writer would hold the command forever).
    @Test(arguments: [["expand", "pipe", "--to", "out"], ["list", "pipe"], ["verify", "pipe"]])
    func aFIFOIsRefusedAtOnceWithWhatItIs(_ arguments: [String]) throws {
        let scratch = try Self.scratch("cli-fifo")
        #expect(mkfifo(scratch.file("pipe"), 0o600) == 0)
        let before = HostileStage.allNames(scratch.path)
        let started = Date()
        let result = try run(tool, arguments, cwd: scratch.path)
        #expect(Date().timeIntervalSince(started) < 20, "waited on the FIFO")
        #expect(result.status != 0 && result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("assetpack: error: ") && result.stderr.contains("pipe") && result.stderr.contains("FIFO"),
                "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        #expect(HostileStage.allNames(scratch.path) == before)
    }

    /// A destination whose name leaves no room for its staging tree's, and a relative destination when the
    /// current folder is gone, are refused naming the path the user gave; nothing is written anywhere.
    @Test func aDestinationThatCannotBeOneIsRefusedByTheUsersPath() throws {
        let scratch = try Self.scratch("cli-bad-destination")
        let long = String(repeating: "n", count: 240)
        let tooLong = try run(tool, ["expand", "src", "--to", long], cwd: scratch.path)
        #expect(tooLong.status == 64, "\(tooLong.stderr)")
        #expect(tooLong.stderr == "assetpack: error: \(long): the folder's name is 240 bytes long; assetpack needs room for a "
                + "hidden sibling with a longer name, so it may have at most 235 bytes\n")
        try mkdir(scratch.file("gone"))
        let script = "cd gone && rmdir ../gone && exec \"$0\" expand ../src --to out"
        let vanished = try run("/bin/sh", ["-c", script, tool], cwd: scratch.path)
        #expect(vanished.status == 64, "\(vanished.stderr)")
        #expect(vanished.stderr == "assetpack: error: out: is a relative path, and the current folder no longer exists; "
                + "give an absolute path\n")
        #expect(!FileManager.default.fileExists(atPath: "/out"))
    }

    @Test func anEmptyTreeIsExpandedWhenAllowed() throws {
        let scratch = try Self.scratch("cli-allow-empty")
        try FileManager.default.createDirectory(atPath: scratch.file("empty/sub"), withIntermediateDirectories: true)
        let refused = try run(tool, ["expand", "empty", "--to", "out"], cwd: scratch.path)
        #expect(refused.status == 66)
        #expect(refused.stderr == "assetpack: error: empty: holds no files, so there is nothing to expand (check the path and the "
                + "root folder given; to expand an empty tree, allow it: --allow-empty)\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
        let allowed = try run(tool, ["expand", "empty", "--to", "out", "--allow-empty"], cwd: scratch.path)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.hasPrefix("expanded 0 files (0 B) into \(scratch.file("out")) in "))
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/sub"), isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test(ExternalTool.zip.needed)
    func anArchiveZipWroteFromAPipeExpandsToARegularFile() throws {
        // Info-ZIP records the pipe's FIFO mode for the entry "-"; unzip and Python extract a regular file, and so do we.
        try ExternalTool.zip.require()
        let scratch = try TemporaryDirectory("cli-pipe")
        let made = try run("/bin/sh", ["-c", "echo hi | zip -q pipe.zip -"], cwd: scratch.path)
        #expect(made.status == 0, "\(made.stderr)")
        let result = try run(tool, ["expand", "pipe.zip", "--to", "out"], cwd: scratch.path)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(ExpandCLITests.read(scratch.file("out")) == ["-": Array("hi\n".utf8)])
        let attributes = try FileManager.default.attributesOfItem(atPath: scratch.file("out/-"))
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
    }

    @Test(ExternalTool.bsdtar.needed)
    func anArchiveBsdtarWroteOfTheCurrentFolderExpands() throws {
        // `bsdtar -a -cf x.zip .` names its entries `./`, `./a/`, `./a/b.txt`: read as unzip and Python read them.
        try ExternalTool.bsdtar.require()
        let scratch = try TemporaryDirectory("cli-dot")
        let files: ExpandCLITests.Files = ["a/b.txt": Array("b\n".utf8), "c.txt": Array("c\n".utf8), "a/d/e.bin": [0, 1, 2]]
        try ExpandCLITests.write(files, to: scratch.file("src"))
        let made = try run("bsdtar", ["-a", "-cf", scratch.file("dot.zip"), "."], cwd: scratch.file("src"))
        #expect(made.status == 0, "\(made.stderr)")
        let listed = try run("bsdtar", ["-tf", scratch.file("dot.zip")])
        #expect(listed.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("./") }, "\(listed.stdout)")
        let result = try run(tool, ["expand", scratch.file("dot.zip"), "--to", scratch.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ExpandCLITests.read(scratch.file("out")) == files)
    }
}
