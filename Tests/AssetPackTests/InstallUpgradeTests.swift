import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

@Suite struct InstallUpgradeTests {
    static let v1 = AssetTree(files: [
        "same/unchanged.txt": Array("unchanged contents".utf8),
        "same/packed.bin": Array(repeating: 9, count: 50_000),
        "changed.txt": Array("old words".utf8),
        "changed-size.bin": Array(repeating: 1, count: 10),
        "removed/gone.txt": Array("bye".utf8),
    ], emptyDirectories: ["empty-old"])

    static let v2 = AssetTree(files: [
        "same/unchanged.txt": Array("unchanged contents".utf8),
        "same/packed.bin": Array(repeating: 9, count: 50_000),
        "changed.txt": Array("new words".utf8),
        "changed-size.bin": Array(repeating: 1, count: 20),
        "added/new.txt": Array("hello".utf8),
    ], emptyDirectories: ["empty-new"])

    @Test func anUpgradeAddsRemovesReplacesAndLinksUnchangedFiles() throws {
        let scratch = try TemporaryDirectory("upgrade")
        let destination = scratch.file("assets")
        try ExpansionFixtures.bundle(Self.v1, packed: ["same/packed.bin": .deflate], at: scratch.file("v1"), scratch: scratch)
        try ExpansionFixtures.bundle(Self.v2, packed: ["same/packed.bin": .deflate], at: scratch.file("v2"), scratch: scratch)
        try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: destination).installSynchronously()
        let unchanged = inodeNumber(destination + "/same/unchanged.txt")
        let packed = inodeNumber(destination + "/same/packed.bin")
        let changed = inodeNumber(destination + "/changed.txt")

        let result = try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: destination).installSynchronously()
        #expect(DiskTree.read(destination) == DiskTree(Self.v2))
        #expect(result.filesLinked == 2)
        #expect(result.filesWritten == 3)
        #expect(inodeNumber(destination + "/same/unchanged.txt") == unchanged)
        #expect(inodeNumber(destination + "/same/packed.bin") == packed)
        #expect(inodeNumber(destination + "/changed.txt") != changed)
        #expect(hiddenNames(scratch.path) == [])
        let links = try FileManager.default.attributesOfItem(atPath: destination + "/same/unchanged.txt")[.referenceCount] as? NSNumber
        #expect(links == 1, "the previous tree is gone, so the linked file has one name again")
    }

    @Test func aTreeWithoutManifestLinksFilesWhoseContentsAreUnchanged() throws {
        let scratch = try TemporaryDirectory("upgrade-tree")
        let destination = scratch.file("assets")
        try scratch.write("tree/keep.txt", text: "keep me")
        try scratch.write("tree/edit.txt", text: "before")
        try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        let kept = inodeNumber(destination + "/keep.txt")
        try scratch.write("tree/edit.txt", text: "after!!")
        let result = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: destination).installSynchronously()
        #expect(result.filesLinked == 1)
        #expect(inodeNumber(destination + "/keep.txt") == kept)
        #expect(DiskTree.read(destination)?.files == ["keep.txt": Array("keep me".utf8), "edit.txt": Array("after!!".utf8)])
    }

    @Test func theOldVersionStaysCompleteUntilTheSwitch() throws {
        let scratch = try TemporaryDirectory("upgrade-visible")
        let destination = scratch.file("assets")
        try ExpansionFixtures.bundle(Self.v1, packed: [:], at: scratch.file("v1"), scratch: scratch)
        try ExpansionFixtures.bundle(Self.v2, packed: [:], at: scratch.file("v2"), scratch: scratch)
        try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: destination).installSynchronously()
        let observed = ReportLog()
        let seenDuringWrite = ObservedTrees()
        try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: destination).installSynchronously { progress in
            observed.append(progress)
            if progress.phase == .writing || progress.phase == .committed { seenDuringWrite.add(DiskTree.read(destination)) }
        }
        #expect(!seenDuringWrite.trees.isEmpty)
        #expect(seenDuringWrite.trees.allSatisfy { $0 == DiskTree(Self.v1) })
        #expect(DiskTree.read(destination) == DiskTree(Self.v2))
    }

    @Test func thePreviousTreeIsRemovedOnlyUnderItsAsideName() throws {
        // A tree being removed must not wait under the staging name: its record, still there while its
        // files go, would let a later install of that version switch the half-removed tree in.
        let scratch = try TemporaryDirectory("upgrade-aside")
        let destination = scratch.file("assets")
        try ExpansionFixtures.bundle(Self.v1, packed: [:], at: scratch.file("v1"), scratch: scratch)
        try ExpansionFixtures.bundle(Self.v2, packed: [:], at: scratch.file("v2"), scratch: scratch)
        try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: destination).installSynchronously()
        let seen = ObservedTrees()
        try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: destination).installSynchronously { progress in
            guard progress.phase == .switched, seen.trees.isEmpty else { return }
            seen.add(DiskTree.read(scratch.file(".assets.assetpack-previous")), names: hiddenNames(scratch.path))
        }
        #expect(seen.namesSeen == [[".assets.assetpack-previous"]])
        #expect(seen.trees == [DiskTree(Self.v1)])
        #expect(hiddenNames(scratch.path) == [])
    }
}

/// What a progress callback saw of the disk, in order.
final class ObservedTrees: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [DiskTree?] = []
    private var names: [[String]] = []
    func add(_ tree: DiskTree?, names seen: [String] = []) { lock.lock(); list.append(tree); names.append(seen); lock.unlock() }
    var trees: [DiskTree?] { lock.lock(); defer { lock.unlock() }; return list }
    /// The names given with each tree.
    var namesSeen: [[String]] { lock.lock(); defer { lock.unlock() }; return names }
}

/// An upgrade reads the installed record beside the plan (``UpgradeDiff``, ``RecordCursor``), both in path order;
/// a record that does not say it is in path order (an earlier version's) is matched whole for each window, with
/// the same outcome; one that says so falsely (edited by hand) gets the right tree, fewer files linked.
@Suite struct UpgradeRecordOrderTests {
    /// Installs v1, rewrites its record's file list with `edit` (and drops its claim of path order unless
    /// `claimsOrder`), upgrades to v2: the result.
    func upgrade(claimsOrder: Bool = true, editingRecord edit: ([[String: Any]]) -> [[String: Any]]) throws -> (ExpansionResult, String) {
        let scratch = try TemporaryDirectory("upgrade-record-order")
        let destination = scratch.file("assets")
        try ExpansionFixtures.bundle(InstallUpgradeTests.v1, packed: [:], at: scratch.file("v1"), scratch: scratch)
        try ExpansionFixtures.bundle(InstallUpgradeTests.v2, packed: [:], at: scratch.file("v2"), scratch: scratch)
        try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: destination).installSynchronously()
        var record = try #require(try JSONSerialization.jsonObject(with: Data(recordBytes(ofTree: destination))) as? [String: Any])
        #expect(record["collation"] as? String == "path", "every record written says its lists are in path order")
        record["files"] = edit(try #require(record["files"] as? [[String: Any]]))
        if !claimsOrder { record["collation"] = nil }
        // Sorted keys, as assetpack writes it: the claim comes before the lists.
        try writeRecord(Array(JSONSerialization.data(withJSONObject: record, options: .sortedKeys)), ofTree: destination)
        let result = try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: destination).installSynchronously()
        #expect(DiskTree.read(destination) == DiskTree(InstallUpgradeTests.v2))
        return (result, destination)
    }

    @Test func aRecordInPathOrderLinksTheUnchangedFiles() throws {
        #expect(try upgrade { $0 }.0.filesLinked == 2)
    }

    @Test func aRecordInAnotherOrderLinksTheSameFiles() throws {
        #expect(try upgrade(claimsOrder: false) { $0.reversed() }.0.filesLinked == 2)
    }

    @Test func aRecordThatClaimsAnOrderItDoesNotHaveStillGivesTheRightTree() throws {
        #expect(try upgrade { $0.reversed() }.0.filesLinked < 2)
    }

    @Test func aPathListedTwiceCountsOnceAsFirstListed() throws {
        // Listed again right after itself with another CRC-32: the first entry still counts.
        #expect(try upgrade { Self.listingTwice("same/unchanged.txt", in: $0, wrongFirst: false) }.0.filesLinked == 2)
        // A wrong first entry is what counts: that file is written again, not linked.
        #expect(try upgrade { Self.listingTwice("same/unchanged.txt", in: $0, wrongFirst: true) }.0.filesLinked == 1)
    }

    /// `files` with the file at `path` listed twice in a row, once with a wrong CRC-32 (first or second).
    static func listingTwice(_ path: String, in files: [[String: Any]], wrongFirst: Bool) -> [[String: Any]] {
        files.flatMap { file -> [[String: Any]] in
            guard file["path"] as? String == path else { return [file] }
            var wrong = file
            wrong["crc32"] = 12345
            return wrongFirst ? [wrong, file] : [file, wrong]
        }
    }
}
