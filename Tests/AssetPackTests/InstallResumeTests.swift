import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

@Suite struct InstallResumeTests {
    static let tree: AssetTree = {
        var random = SeededRandom(seed: 99)
        var files: [String: [UInt8]] = [:]
        for index in 0..<12 { files["dir\(index % 3)/file\(index).bin"] = random.bytes(1_000 + index * 700) }
        files["big.txt"] = random.text(200_000)
        return AssetTree(files: files, emptyDirectories: ["empty"])
    }()

    /// Stops the expansion after `count` written files, as an interrupted first launch would.
    private func interrupt(_ installer: AssetInstaller, after count: Int) throws {
        let cancellation = ExpansionCancellation()
        do {
            try installer.installSynchronously(progress: { if $0.filesWritten >= count { cancellation.cancel() } }, cancellation: cancellation)
        } catch where error.code == .cancelled {
            return
        }
    }

    @Test func anInterruptedExpansionResumesKeepingVerifiedFiles() throws {
        let scratch = try TemporaryDirectory("resume")
        try ExpansionFixtures.bundle(Self.tree, packed: ["big.txt": .deflate, "dir1/file4.bin": .stored],
                                     at: scratch.file("bundle"), scratch: scratch)
        for stop in [1, 5, 12] {
            let destination = scratch.file("assets-\(stop)")
            let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination,
                                               options: ExpansionOptions(jobs: 1))
            try interrupt(installer, after: stop)
            #expect(!FileManager.default.fileExists(atPath: destination), "a partial tree is never visible")
            let staging = scratch.file(".assets-\(stop).assetpack-staging")
            #expect(!FileManager.default.fileExists(atPath: staging + "/.assetpack/identity"), "no record for a partial tree")
            let staged = DiskTree.read(staging)?.files ?? [:]
            #expect(staged.count >= stop)
            let result = try installer.installSynchronously()
            #expect(result.filesResumed == staged.count)
            #expect(result.filesWritten == Self.tree.files.count - staged.count)
            #expect(DiskTree.read(destination) == DiskTree(Self.tree))
            #expect(!FileManager.default.fileExists(atPath: staging))
        }
    }

    @Test func leftoversOfACrashAreCleanedOnResume() throws {
        let scratch = try TemporaryDirectory("resume-leftovers")
        try ExpansionFixtures.bundle(Self.tree, packed: ["big.txt": .deflate], at: scratch.file("bundle"), scratch: scratch)
        let destination = scratch.file("assets")
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination)
        try interrupt(installer, after: 3)
        let staging = scratch.file(".assets.assetpack-staging")
        // What a kill could leave: a half-written temporary, a file cut short, a stray name.
        try scratch.write(".assets.assetpack-staging/dir0/.assetpack-tmp-7", [1, 2, 3])
        let victim = try #require(DiskTree.read(staging)?.files.keys.sorted().first)
        try scratch.write(".assets.assetpack-staging/" + victim, [0])
        try scratch.write(".assets.assetpack-staging/stray.txt", text: "not in the bundle")
        try installer.installSynchronously()
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
    }

    @Test func stagingForAnotherBundleIsDiscarded() throws {
        let scratch = try TemporaryDirectory("resume-other")
        let other = AssetTree(files: ["dir0/file0.bin": Array(repeating: 7, count: 1_000)])  // same size as in tree
        try ExpansionFixtures.bundle(other, packed: [:], at: scratch.file("other"), scratch: scratch)
        try ExpansionFixtures.bundle(Self.tree, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        let destination = scratch.file("assets")
        let first = try AssetInstaller(source: DirectorySource(root: scratch.file("other")), destination: destination)
        try interrupt(first, after: 1)
        try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: destination).installSynchronously()
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
    }

    @Test func aCompleteStagingTreeIsSwitchedInWithoutRewriting() throws {
        // The state a crash between the commit and the switch leaves: a complete staging tree with its record.
        let scratch = try TemporaryDirectory("resume-complete")
        try ExpansionFixtures.bundle(Self.tree, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"))
        try installer.installSynchronously()
        try FileManager.default.moveItem(atPath: scratch.file("assets"), toPath: scratch.file(".assets.assetpack-staging"))
        #expect(!installer.isUpToDate())
        let result = try installer.installSynchronously()
        #expect(!result.upToDate)
        #expect(result.filesWritten == 0)
        #expect(DiskTree.read(scratch.file("assets")) == DiskTree(Self.tree))
        #expect(hiddenNames(scratch.path) == [])
    }

    @Test func aPreviousTreeLeftAfterTheSwitchIsRemoved() throws {
        // The state a crash right after the switch leaves: the old tree under the staging name.
        let scratch = try TemporaryDirectory("resume-switched")
        try ExpansionFixtures.bundle(Self.tree, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("bundle")), destination: scratch.file("assets"))
        try installer.installSynchronously()
        try scratch.write(".assets.assetpack-staging/old.txt", text: "previous version")
        #expect(!installer.isUpToDate())
        let result = try installer.installSynchronously()
        #expect(result.upToDate)
        #expect(hiddenNames(scratch.path) == [])
        #expect(installer.isUpToDate())
    }

    /// Each file of a tree's record carries the inode and modification time the file has in the tree, whatever step
    /// put it there: written, kept from an interrupted run, or hard-linked from the installed tree by an upgrade
    /// (whose proof that a file is unchanged rests on them).
    @Test func theRecordHoldsEachFilesInodeAndModificationTimeAsTheTreeHasThem() throws {
        let scratch = try TemporaryDirectory("resume-ondisk")
        try ExpansionFixtures.bundle(Self.tree, packed: ["big.txt": .deflate], at: scratch.file("v1"), scratch: scratch)
        var changed = Self.tree
        changed.files["dir0/file0.bin"] = Array("changed".utf8)
        try ExpansionFixtures.bundle(changed, packed: ["big.txt": .deflate], at: scratch.file("v2"), scratch: scratch)
        let destination = scratch.file("assets")
        func install(_ bundle: String) throws -> AssetInstaller {
            try AssetInstaller(source: DirectorySource(root: scratch.file(bundle)), destination: destination,
                               options: ExpansionOptions(jobs: 1))
        }
        func expectRecordMatchesTheTree(_ step: String) throws {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(recordBytes(ofTree: destination)))
                as? [String: Any])
            let files = try #require(record["files"] as? [[String: Any]])
            #expect(files.count == Self.tree.files.count)
            for file in files {
                let path = try #require(file["path"] as? String)
                var status = stat()
                #expect(lstat(destination + "/" + path, &status) == 0)
                let mtime = UInt64(status.st_mtim.tv_sec) * 1_000_000_000 + UInt64(status.st_mtim.tv_nsec)
                #expect((file["inode"] as? NSNumber)?.uint64Value == UInt64(status.st_ino), "\(step): inode of \(path)")
                #expect((file["mtime"] as? NSNumber)?.uint64Value == mtime, "\(step): mtime of \(path)")
            }
        }
        let first = try install("v1")
        try interrupt(first, after: 4)
        let resumed = try first.installSynchronously()
        #expect(resumed.filesResumed >= 4 && resumed.filesWritten > 0)
        try expectRecordMatchesTheTree("written and resumed")
        let upgrade = try install("v2").installSynchronously()
        #expect(upgrade.filesLinked == Self.tree.files.count - 1 && upgrade.filesWritten == 1)
        try expectRecordMatchesTheTree("linked and written")
        let again = try install("v1").installSynchronously()
        #expect(again.filesLinked == Self.tree.files.count - 1, "a file linked before is proven unchanged again")
        try expectRecordMatchesTheTree("linked twice")
    }
}
