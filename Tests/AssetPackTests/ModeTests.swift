import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// What lands on disk has safe permissions whatever the archive asks for: setuid, setgid, sticky and
/// world-writable bits are dropped, owner read and write are added (PermissionPolicy); FIFOs, sockets and
/// devices are never created. Checked on the files themselves, with `lstat`.
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
    func specialNodesAreNeverCreated(_ node: (Int, String), _ placement: Placement) throws {
        let stage = try HostileStage("modes-special")
        let special = RawZip.Entry(name: Array("node".utf8), data: [], mode: UInt32(node.0))
        let error = try stage.refuse(rawZip([RawZip.file("a.txt", [1]), special]), placement)
        expectError(error, .unsupported, mentions: [stage.archivePath(placement).shown, "\"node\"", "never created"])
        stage.expectIntact(absent: ["node", "a.txt"])
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")))
    }
}
