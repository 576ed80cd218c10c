import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// What lands on disk has the modes the source states, made safe whatever it asks for: setuid, setgid,
/// sticky and world-writable bits are dropped, owner read and write are added (PermissionPolicy), for an
/// archive given as the source, one inside a tree and a folder source alike; FIFOs, sockets and
/// devices are never created: such an entry becomes a regular file of its data with the default mode
/// (ArchiveEntryPolicy). Checked on the files themselves, with `lstat`, and in the install record.
@Suite struct ModeTests {
    /// The permission bits of `path` on disk (not following a link).
    static func mode(_ path: String) -> UInt32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    @Test func dangerousBitsAreDroppedOnDisk() throws {
        let stage = try HostileStage("modes")
        let entries = [
            RawZip.file("setuid", [1], mode: 0o4755), RawZip.file("setgid", [2], mode: 0o2755),
            RawZip.file("sticky", [3], mode: 0o1644), RawZip.file("world", [4], mode: 0o666),
            RawZip.file("all", [5], mode: 0o7777), RawZip.file("none", [6], mode: 0o000),
            RawZip.file("plain", [7], mode: 0o640),
            RawZip.directory("dir-sticky/", mode: 0o1777), RawZip.directory("dir-setgid/", mode: 0o2775),
            RawZip.directory("dir-none/", mode: 0o000),
        ]
        try RawZip(entries).write(to: stage.archivePath(.inTree).path)
        _ = try stage.accept(.inTree)
        let expected: [String: UInt32] = [
            "setuid": 0o755, "setgid": 0o755, "sticky": 0o644, "world": 0o664, "all": 0o775, "none": 0o600, "plain": 0o640,
            "dir-sticky": 0o775, "dir-setgid": 0o775, "dir-none": 0o700,
        ]
        for (name, bits) in expected {
            #expect(Self.mode(stage.destination + "/" + name) == bits, "\(name): \(String(Self.mode(stage.destination + "/" + name) ?? 0, radix: 8))")
        }
    }

    /// The modes an archive states land as `unzip` gives them (through PermissionPolicy), whether the
    /// archive is the source or lies in a tree; an entry that states none (made on Windows, or with no
    /// external attributes) gets the default; a folder entry that comes after its files still counts.
    @Test(arguments: Placement.allCases)
    func modesTheArchiveStatesAreKept(_ placement: Placement) throws {
        let stage = try HostileStage("modes-kept")
        let entries = [
            RawZip.file("run.sh", Array("#!/bin/sh\n".utf8), mode: 0o755), RawZip.file("secret.txt", [1], mode: 0o600),
            RawZip.directory("privdir/", mode: 0o700), RawZip.file("privdir/f", [2], mode: 0o640),
            RawZip.file("late/f", [3], mode: 0o700), RawZip.directory("late/", mode: 0o750),
            RawZip.file("setuid", [4], mode: 0o4777), RawZip.directory("sticky/", mode: 0o1777),
            RawZip.windowsFile("windows.txt", [5]), RawZip.windowsDirectory("windir/"),
            RawZip.Entry(name: Array("no-attributes".utf8), data: [6], mode: 0),
        ]
        try RawZip(entries).write(to: stage.archivePath(placement).path)
        _ = try stage.accept(placement)
        let expected: [String: UInt32] = [
            "run.sh": 0o755, "secret.txt": 0o600, "privdir": 0o700, "privdir/f": 0o640, "late": 0o750, "late/f": 0o700,
            "setuid": 0o775, "sticky": 0o775, "windows.txt": 0o644, "windir": 0o755, "no-attributes": 0o644,
        ]
        try Self.expectModes(expected, in: stage.destination)
        try Self.expectConsistent(stage.source(placement), stage.destination)
    }

    /// The files and folders of a folder source keep their modes (through PermissionPolicy), as an
    /// archive's entries do.
    @Test func modesOfAFolderSourceAreKept() throws {
        let scratch = try TemporaryDirectory("modes-folder")
        try scratch.write("tree/run.sh", text: "#!/bin/sh\n")
        try scratch.write("tree/secret.txt", text: "s")
        try scratch.write("tree/privdir/f", text: "y")
        try scratch.write("tree/open/g", text: "z")
        try chmod(scratch.file("tree/run.sh"), 0o755)
        try chmod(scratch.file("tree/secret.txt"), 0o600)
        try chmod(scratch.file("tree/privdir/f"), 0o640)
        try chmod(scratch.file("tree/privdir"), 0o700)
        try chmod(scratch.file("tree/open"), 0o777)
        try chmod(scratch.file("tree/open/g"), 0o666)
        let destination = scratch.file("out")
        _ = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        try Self.expectModes(["run.sh": 0o755, "secret.txt": 0o600, "privdir": 0o700, "privdir/f": 0o640,
                              "open": 0o775, "open/g": 0o664], in: destination)
        try Self.expectConsistent(DirectorySource(root: scratch.file("tree")), destination)
    }

    /// An archive Info-ZIP's `zip -r` made of a folder expands with the modes `unzip` gives its files and
    /// folders, as the source and inside a tree alike.
    @Test(ExternalTool.zip.needed, arguments: Placement.allCases)
    func anArchiveZipMadeKeepsTheModesUnzipGives(_ placement: Placement) throws {
        try ExternalTool.zip.require()
        try ExternalTool.unzip.require()
        let work = try TemporaryDirectory("modes-zip-r")
        try work.write("src/run.sh", text: "#!/bin/sh\n")
        try work.write("src/secret.txt", text: "s")
        try work.write("src/privdir/f", text: "y")
        for (path, bits) in [("run.sh", 0o755), ("secret.txt", 0o600), ("privdir/f", 0o644), ("privdir", 0o700)] {
            try chmod(work.file("src/" + path), bits)
        }
        let made = try run("/bin/sh", ["-c", "zip -qr ../modes.zip . && mkdir ../unzipped && cd ../unzipped && unzip -q ../modes.zip"],
                           cwd: work.file("src"))
        #expect(made.status == 0, "\(made.stderr)")
        let stage = try HostileStage("modes-zip-r-stage")
        try makeParent(stage.archivePath(placement).path)
        try FileManager.default.copyItem(atPath: work.file("modes.zip"), toPath: stage.archivePath(placement).path)
        _ = try stage.accept(placement)
        var expected: [String: UInt32] = [:]
        for path in ["run.sh", "secret.txt", "privdir", "privdir/f"] { expected[path] = Self.mode(work.file("unzipped/" + path)) }
        #expect(expected == ["run.sh": 0o755, "secret.txt": 0o600, "privdir": 0o700, "privdir/f": 0o644])
        try Self.expectModes(expected, in: stage.destination)
        try Self.expectConsistent(stage.source(placement), stage.destination)
    }

    /// Checks the mode of each path below `destination`, on disk and in the install record.
    static func expectModes(_ expected: [String: UInt32], in destination: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let record = try #require(try JSONSerialization.jsonObject(
            with: Data(recordBytes(ofTree: destination))) as? [String: Any])
        var recorded: [String: UInt32] = [:]
        for key in ["files", "directories"] {
            for element in record[key] as? [[String: Any]] ?? [] {
                if let path = element["path"] as? String, let mode = element["mode"] as? Int { recorded[path] = UInt32(mode) }
            }
        }
        for (path, bits) in expected {
            let found = mode(destination + "/" + path)
            #expect(found == bits, "\(path): \(String(found ?? 0, radix: 8)) on disk", sourceLocation: sourceLocation)
            #expect(recorded[path] == bits, "\(path): \(String(recorded[path] ?? 0, radix: 8)) recorded", sourceLocation: sourceLocation)
        }
    }

    /// Checks that a second install of `source` finds the destination up to date, and that `status` and
    /// the deep check find nothing that differs from the record.
    static func expectConsistent(_ source: any AssetSource, _ destination: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let installer = try AssetInstaller(source: source, destination: destination)
        #expect(try installer.installSynchronously().upToDate, "a second expand rewrote the tree", sourceLocation: sourceLocation)
        let status = try installer.status()
        #expect(status.state == .installed && status.problems == [], "\(status.problems)", sourceLocation: sourceLocation)
        let verified = try installer.verify()
        #expect(verified.problems == [] && verified.repaired == [], "\(verified.problems)", sourceLocation: sourceLocation)
    }

    @Test(arguments: [(0o010644, "FIFO"), (0o020644, "character device"), (0o060644, "block device"), (0o140644, "socket")],
          Placement.allCases)
    func specialEntriesBecomeRegularFilesNeverNodes(_ node: (Int, String), _ placement: Placement) throws {
        let stage = try HostileStage("modes-special")
        let data = Array("what the pipe carried\n".utf8)
        let withData = RawZip.Entry(name: Array("node".utf8), data: data, mode: UInt32(node.0))
        let empty = RawZip.Entry(name: Array("empty-node".utf8), data: [], mode: UInt32(node.0) | 0o7000)
        try RawZip([RawZip.file("a.txt", [1]), withData, empty]).write(to: stage.archivePath(placement).path)
        let tree = try stage.accept(placement)
        #expect(tree?.files == ["a.txt": [1], "node": data, "empty-node": []], "\(node.1)")
        for name in ["node", "empty-node"] {
            var info = stat()
            #expect(lstat(stage.destination + "/" + name, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFREG, "\(name) (\(node.1)) is not a regular file")
            #expect(Self.mode(stage.destination + "/" + name) == 0o644, "\(name) (\(node.1))")
        }
    }

    @Test(ExternalTool.zip.needed, arguments: Placement.allCases)
    func anArchiveZipWroteFromAPipeExpands(_ placement: Placement) throws {
        // `echo hi | zip out.zip -` stores the entry "-" with the pipe's mode (FIFO, 0600) in its attributes.
        try ExternalTool.zip.require()
        let work = try TemporaryDirectory("modes-pipe")
        let made = try run("/bin/sh", ["-c", "printf 'from a pipe\\n' | zip -q pipe.zip -"], cwd: work.path)
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: work.file("pipe.zip"))))
        let entry = try #require(try ZipArchive(source: MemorySource(bytes)).entries.first)
        #expect(entry.kind == .special, "zip no longer records the pipe's mode: \(String(entry.unixMode ?? 0, radix: 8))")
        let stage = try HostileStage("modes-pipe-stage")
        try makeParent(stage.archivePath(placement).path)
        try Data(bytes).write(to: URL(fileURLWithPath: stage.archivePath(placement).path))
        let tree = try stage.accept(placement)
        #expect(tree?.files == ["-": Array("from a pipe\n".utf8)])
        var info = stat()
        #expect(lstat(stage.destination + "/-", &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(Self.mode(stage.destination + "/-") == 0o644)
    }
}
