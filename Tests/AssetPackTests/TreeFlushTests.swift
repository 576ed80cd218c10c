@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The durable default flushes the files and folders it wrote (TreeFlush), not the whole file system,
/// unless `syncfs` is cheaper; both ways must reach every file, nested folders and the staging root.
@Suite struct TreeFlushTests {
    @Test(arguments: [false, true])
    func everyFileAndFolderOfThePlanIsFlushed(wholeFileSystem: Bool) throws {
        let scratch = try TemporaryDirectory("tree-flush")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let source = DirectorySource(root: scratch.file("tree"))
        let plan = try ExpansionPlanner.plan(source, options: ExpansionOptions())
        let staging = try Descriptor.directory(scratch.file("tree"))
        if try TreeFlush.flushUnlessWholeFileSystem(plan, in: staging, wholeFileSystem: wholeFileSystem) {
            try staging.fd.syncFileSystem(path: staging.path)
        }
    }

    @Test func aMissingFileOfThePlanFailsTheFlushNamingIt() throws {
        let scratch = try TemporaryDirectory("tree-flush-missing")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")), options: ExpansionOptions())
        let victim = try #require(plan.items.first { $0.kind == .file }).path.string
        try FileManager.default.removeItem(atPath: scratch.file("tree/" + victim))
        let error = #expect(throws: AssetPackError.self) {
            _ = try TreeFlush.flushUnlessWholeFileSystem(plan, in: Descriptor.directory(scratch.file("tree")),
                                                         wholeFileSystem: false)
        }
        #expect(error?.path?.hasSuffix(victim) == true)
    }

    /// Files are flushed in batches (their write-back started, then each `fsync`ed): a missing file in a later
    /// batch, after files of the same batch were opened, still fails the flush, naming it.
    @Test func aMissingFileInALaterBatchFailsTheFlushNamingIt() throws {
        let scratch = try TemporaryDirectory("tree-flush-batches")
        for folder in 0..<3 {
            try FileManager.default.createDirectory(atPath: scratch.file("tree/d\(folder)"), withIntermediateDirectories: true)
            for file in 0..<(TreeFlush.batch + 5) {
                try Data(repeating: UInt8(file), count: file * 10).write(to: URL(fileURLWithPath: scratch.file("tree/d\(folder)/f\(file)")))
            }
        }
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")), options: ExpansionOptions())
        #expect(plan.fileCount > 2 * TreeFlush.batch)
        _ = try TreeFlush.flushUnlessWholeFileSystem(plan, in: Descriptor.directory(scratch.file("tree")),
                                                     wholeFileSystem: false)
        let victim = try #require(plan.items.last { $0.kind == .file }).path.string
        try FileManager.default.removeItem(atPath: scratch.file("tree/" + victim))
        let error = #expect(throws: AssetPackError.self) {
            _ = try TreeFlush.flushUnlessWholeFileSystem(plan, in: Descriptor.directory(scratch.file("tree")),
                                                         wholeFileSystem: false)
        }
        #expect(error?.path?.hasSuffix(victim) == true)
    }

    /// The record's files are flushed after the tree's (a failing flush of one is the flush's error); missing
    /// ones are passed over.
    @Test func filesBesideThePlanAreFlushedWithIt() throws {
        let scratch = try TemporaryDirectory("tree-flush-record")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")), options: ExpansionOptions())
        try FileManager.default.createDirectory(atPath: scratch.file("tree/.assetpack"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: scratch.file("tree/.assetpack/installed.json")))
        let staging = try Descriptor.directory(scratch.file("tree"))
        let record = (folder: ".assetpack", files: ["installed.json", "source"])
        let fault = FaultInjection.Fault("fsync", fails: .ioError, under: scratch.path, endingWith: "installed.json")
        try FaultInjection.with(fault) {
            _ = try TreeFlush.flushUnlessWholeFileSystem(plan, in: staging, wholeFileSystem: false)  // not the record's
            let error = #expect(throws: AssetPackError.self) {
                try TreeFlush.flushRecord(in: staging, also: record)
            }
            #expect(error?.path?.hasSuffix(".assetpack/installed.json") == true)
        }
        try TreeFlush.flushRecord(in: staging, also: record)
    }

    @Test func theSystemsPendingWriteBackIsReadOnLinux() {
        #if os(Linux)
        #expect(FileSystem.pendingWritebackBytes() != nil)
        #endif
        #expect(!TreeFlush.wholeFileSystemIsCheaper(files: 0) || FileSystem.pendingWritebackBytes() == 0)
    }

    @Test func aDurableExpansionOfManyFilesIsComplete() throws {
        let scratch = try TemporaryDirectory("tree-flush-install")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let result = try AssetInstaller(source: DirectorySource(root: scratch.file("tree")),
                                        destination: scratch.file("out")).installSynchronously()
        #expect(result.files == AssetTree.standard.files.count)
        #expect(DiskTree.read(scratch.file("out")) == DiskTree(.standard))
    }
}
