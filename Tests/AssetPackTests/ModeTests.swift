import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// What lands on disk has safe permissions whatever the archive asks for: setuid, setgid, sticky and
/// world-writable bits are dropped, owner read and write are added (PermissionPolicy); FIFOs, sockets and
/// devices are never created: such an entry becomes a regular file of its data with the default mode
/// (ArchiveEntryPolicy). Checked on the files themselves, with `lstat`.
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
