@testable import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// The upgrade of an installed tree by a bundle a window at a time (`InstallTransaction`, `InstallPlanning`, forced
/// here with tiny windows): each window's unchanged files are linked from the installed tree, its record walked
/// beside the windows (`RecordCursor`); the outcome is a whole plan's.
@Suite struct WindowedUpgradeTests {
    /// Installs `bundle` (v1) into `dir/out-<name>`, builds v2 with one file changed, one added, one removed.
    static func prepare(_ dir: TemporaryDirectory, _ name: String, durable: Bool) throws {
        _ = try WindowedInstallTests.install(dir.file("bundle"), into: dir.file("out-\(name)"),
                                             options: WindowedInstallTests.options(window: nil, durable: durable))
    }

    static func buildV2(_ dir: TemporaryDirectory) throws {
        try dir.write("src/d0/sub/f0.txt", text: "changed")
        try dir.write("src/d2/added.txt", text: "added")
        try FileManager.default.removeItem(atPath: dir.file("src/d1/zz.txt"))
        _ = try Packer(options: BuildOptions(rules: PackingRules(threshold: 1024))).build(source: dir.file("src"), output: dir.file("v2"))
    }

    func inode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    @Test(arguments: [(1, false), (3, true), (5, false)])
    func aWindowedUpgradeIsTheUpgradeOfAWholePlan(window: Int, durable: Bool) throws {
        let dir = try TemporaryDirectory("windowed-upgrade-same")
        try WindowedInstallTests.build(dir)
        try Self.prepare(dir, "whole", durable: durable)
        try Self.prepare(dir, "windowed", durable: durable)
        let kept = try inode(dir.file("out-windowed/plain.bin"))
        try Self.buildV2(dir)
        let whole = try WindowedInstallTests.install(dir.file("v2"), into: dir.file("out-whole"),
                                                     options: WindowedInstallTests.options(window: nil, durable: durable))
        let windowed = try WindowedInstallTests.install(dir.file("v2"), into: dir.file("out-windowed"),
                                                        options: WindowedInstallTests.options(window: window, durable: durable))
        #expect(DiskTree.read(dir.file("out-windowed")) == DiskTree.read(dir.file("out-whole")))
        #expect(DiskTree.read(dir.file("out-windowed"))?.files["d2/added.txt"] == Array("added".utf8))
        #expect(try recordTextWithoutInodes(ofTree: dir.file("out-windowed")) == recordTextWithoutInodes(ofTree: dir.file("out-whole")))
        #expect(windowed.result.filesLinked == whole.result.filesLinked && windowed.result.filesWritten == whole.result.filesWritten)
        #expect(windowed.result.filesLinked == windowed.result.files - 2, "all but the changed and the added file")
        #expect(windowed.result.bytesWritten == whole.result.bytesWritten)
        #expect(try inode(dir.file("out-windowed/plain.bin")) == kept, "linked, not written again")
        #expect(hiddenNames(dir.path) == [], "no staging tree, no previous tree left")
        #expect(windowed.totals.subtracting([0]).count > 1, "planned a window at a time: the totals grew")
        #expect(whole.totals.subtracting([0]).count == 1)
    }

    /// A record not in path order (as an earlier version recorded a tree installed from an archive, without
    /// `"collation":"path"`) is matched whole for each window: the upgrade still goes a window at a time, and still
    /// links the unchanged files.
    @Test func aRecordOutOfOrderIsUpgradedAWindowAtATime() throws {
        let dir = try TemporaryDirectory("windowed-upgrade-unordered")
        try WindowedInstallTests.build(dir)
        try Self.prepare(dir, "a", durable: false)
        var record = try #require(try JSONSerialization.jsonObject(with: Data(recordBytes(ofTree: dir.file("out-a")))) as? [String: Any])
        record["files"] = Array((try #require(record["files"] as? [[String: Any]])).reversed())
        record["collation"] = nil
        try writeRecord(Array(JSONSerialization.data(withJSONObject: record, options: .sortedKeys)), ofTree: dir.file("out-a"))
        try Self.buildV2(dir)
        let upgrade = try WindowedInstallTests.install(dir.file("v2"), into: dir.file("out-a"), options: WindowedInstallTests.options(window: 2))
        let sizes = upgrade.totals.subtracting([0])
        #expect(upgrade.result.filesLinked == upgrade.result.files - 2)
        #expect(sizes.count > 1, "the totals grow window by window: \(sizes)")
        #expect(DiskTree.read(dir.file("out-a"))?.files["d0/sub/f0.txt"] == Array("changed".utf8))
    }

    /// Interrupted after some files, the windowed upgrade leaves its staging tree; the next call finishes it
    /// (planned whole, as every resumed install), with the same tree as an upgrade that was never interrupted.
    @Test func anInterruptedWindowedUpgradeIsFinishedByTheNextCall() throws {
        let dir = try TemporaryDirectory("windowed-upgrade-resume")
        try WindowedInstallTests.build(dir)
        try Self.prepare(dir, "a", durable: false)
        try Self.prepare(dir, "b", durable: false)
        try Self.buildV2(dir)
        let error = try WindowedInstallTests.cancelled(installing: dir.file("v2"), into: dir.file("out-a")) { $0.filesDone >= 9 }
        #expect(error?.code == .cancelled)
        #expect(hiddenNames(dir.path) == [".out-a.assetpack-staging"])
        #expect(DiskTree.read(dir.file("out-a")) == DiskTree.read(dir.file("out-b")), "the installed tree is untouched")
        _ = try WindowedInstallTests.install(dir.file("v2"), into: dir.file("out-a"), options: WindowedInstallTests.options(window: 2))
        _ = try WindowedInstallTests.install(dir.file("v2"), into: dir.file("out-b"), options: WindowedInstallTests.options(window: nil))
        #expect(DiskTree.read(dir.file("out-a")) == DiskTree.read(dir.file("out-b")))
        #expect(try recordTextWithoutInodes(ofTree: dir.file("out-a")) == recordTextWithoutInodes(ofTree: dir.file("out-b")))
        #expect(hiddenNames(dir.path) == [])
    }
}
