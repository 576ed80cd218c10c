@testable import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// What a failed install leaves beside the destination (``FailureCleanup``): the staging tree stays for a
/// resume after a fault of the machine or a cancellation; after a refused input or a refused free-space
/// check the destination's parent lists exactly as before — parent folders the run made included; a
/// staging tree of another source is removed, not resumed; ``AssetInstaller/discardPartialInstall()``
/// removes a partial install on request.
@Suite struct FailureCleanupTests {
    static let tree: AssetTree = {
        var random = SeededRandom(seed: 61)
        var files: [String: [UInt8]] = [:]
        for index in 0..<6 { files["part\(index).bin"] = random.bytes(20_000 + index * 1_000) }
        return AssetTree(files: files)
    }()

    /// Writes ``tree`` as the folder `tree` of `work`.
    static func writeTree(in work: TemporaryDirectory) throws {
        for (path, bytes) in tree.files { try work.write("tree/" + path, bytes) }
    }

    /// Installs `source` into `destination`, cancelled after `files` files.
    static func interrupt(_ source: any AssetSource, into destination: String, after files: Int) throws {
        let cancellation = ExpansionCancellation()
        let installer = try AssetInstaller(source: source, destination: destination, options: ExpansionOptions(jobs: 1))
        let error = #expect(throws: AssetPackError.self) {
            try installer.installSynchronously(progress: { if $0.filesWritten >= files { cancellation.cancel() } }, cancellation: cancellation)
        }
        #expect(error?.code == .cancelled)
    }

    /// A zip of `tree`, as raw bytes, with every file's bytes changed when `other`.
    static func zip(_ tree: AssetTree, other: Bool = false) -> [UInt8] {
        RawZip(tree.files.keys.sorted().map { RawZip.file($0, other ? tree.files[$0]!.map { $0 ^ 0x5A } : tree.files[$0]!) }).bytes
    }

    @Test func theRuleIsTheErrorsCode() {
        let kind = FailureCleanup.kind(of:)
        #expect(kind(AssetPackError(.cancelled, "cancelled")) == .interrupted)
        #expect(kind(AssetPackError(SystemError("pwrite", .ioError, path: "x"))) == .interrupted)
        #expect(kind(AssetPackError(SystemError("write", .noSpace, path: "x"))) == .interrupted)
        #expect(kind(AssetPackError(SystemError("mkdirat", .readOnlyFileSystem, path: "x"))) == .interrupted)
        #expect(kind(AssetPackError(.noSpace, "not enough free space", path: "x")) == .refusedBeforeWriting)
        for code: AssetPackError.Code in [.archive, .limitExceeded, .unsafePath, .conflict, .symlink, .unsupported, .manifest,
                                          .verification, .notFound, .invalidArgument] {
            #expect(kind(AssetPackError(code, "refused")) == .badInput, "\(code)")
        }
        #expect(kind(AssetPackError(ZipError(.checksum, "CRC-32 mismatch"))) == .badInput)
        #expect(kind(AssetPackError(ZipError(.corruptData, "damaged", cause: .zlib(call: "inflate", status: -3)))) == .badInput)
    }

    @Test(arguments: Placement.allCases)
    func aRefusedInputRemovesTheParentFoldersTheRunMade(_ placement: Placement) throws {
        let work = try TemporaryDirectory("cleanup-parents")
        let path = placement == .inTree ? work.file("tree/pack.zip") : work.file("hostile.zip")
        let source: () throws -> any AssetSource = {
            placement == .inTree ? DirectorySource(root: work.file("tree")) : try ZipAssetSource(path: path)
        }
        var damaged = RawZip.file("bad.bin", Array(repeating: 1, count: 5_000))
        damaged.crc32 = 0x1234_5678
        damaged.localCRC32 = 0x1234_5678
        let inputs = [("found while writing", [RawZip.file("fine.txt", [1]), damaged]),
                      ("found while planning", [RawZip.file("fine.txt", [1]), RawZip.file("../evil.txt", [6])])]
        for (label, entries) in inputs {
            try RawZip(entries).write(to: path)
            let before = HostileStage.allNames(work.path)
            let error = #expect(throws: AssetPackError.self, "\(label)") {
                try AssetInstaller(source: try source(), destination: work.file("new/deeper/assets")).installSynchronously()
            }
            #expect(FailureCleanup.kind(of: try #require(error)) == .badInput)
            #expect(HostileStage.allNames(work.path) == before, "\(label): \(HostileStage.allNames(work.path).subtracting(before))")
        }
    }

    @Test func aRefusedFreeSpaceCheckLeavesTheParentAsItWas() throws {
        let stage = try HostileStage("cleanup-preflight")
        for (path, bytes) in Self.tree.files { try stage.scratch.write("tree/" + path, bytes) }
        var options = ExpansionOptions(jobs: 1)
        options.testSeam.freeSpace = 10_000
        let error = stage.refuse(.inTree, options: options)
        expectError(error, .noSpace, mentions: [stage.destination, "not enough free space"])
        stage.expectIntact()
        // And the folders made for a new destination go again.
        let before = HostileStage.allNames(stage.scratch.path)
        #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: stage.scratch.file("tree")), destination: stage.scratch.file("new/assets"),
                               options: options).installSynchronously()
        }
        #expect(HostileStage.allNames(stage.scratch.path) == before)
    }

    @Test func aRefusedFreeSpaceCheckKeepsWhatAnEarlierRunStagedForTheSameSource() throws {
        let work = try TemporaryDirectory("cleanup-preflight-resume")
        try Self.writeTree(in: work)
        let destination = work.file("assets")
        try Self.interrupt(DirectorySource(root: work.file("tree")), into: destination, after: 2)
        let staged = HostileStage.allNames(work.file(".assets.assetpack-staging"))
        #expect(staged.contains { $0.hasPrefix("part") })
        var tight = ExpansionOptions(jobs: 1)
        tight.testSeam.freeSpace = 10_000
        #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: destination, options: tight).installSynchronously()
        }
        #expect(HostileStage.allNames(work.file(".assets.assetpack-staging")) == staged, "the earlier run's staging tree changed")
        let result = try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: destination).installSynchronously()
        #expect(result.filesResumed >= 2)
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
    }

    @Test func aFaultOfTheMachineKeepsTheStagingTreeAndTheNextRunResumes() throws {
        let work = try TemporaryDirectory("cleanup-eio")
        try Self.writeTree(in: work)
        let destination = work.file("assets")
        // Files are written largest first: part5 and part4 verify, then writing part3 fails.
        let faults = ["write", "pwrite"].map { FaultInjection.Fault($0, fails: .ioError, under: work.file(".assets.assetpack-staging/part3")) }
        faults.forEach(FaultInjection.install)
        let error = #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: destination,
                               options: ExpansionOptions(jobs: 1)).installSynchronously()
        }
        faults.forEach(FaultInjection.remove)
        #expect(error?.errno == EIO)
        #expect(FailureCleanup.kind(of: try #require(error)) == .interrupted)
        #expect(hiddenNames(work.path) == [".assets.assetpack-staging"])
        let result = try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: destination).installSynchronously()
        #expect(result.filesResumed >= 1, "the verified files of the failed run were resumed")
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
        #expect(hiddenNames(work.path) == [])
    }

    @Test func aStagingTreeOfAnotherSourceIsRemovedNotResumed() throws {
        // Two archives with the same names and sizes, other bytes: the first is interrupted, the second
        // must not keep any of its files.
        let work = try TemporaryDirectory("cleanup-other-source")
        try Data(Self.zip(Self.tree, other: true)).write(to: URL(fileURLWithPath: work.file("old.zip")))
        try Data(Self.zip(Self.tree)).write(to: URL(fileURLWithPath: work.file("new.zip")))
        let destination = work.file("assets")
        try Self.interrupt(try ZipAssetSource(path: work.file("old.zip")), into: destination, after: 3)
        #expect(DiskTree.read(work.file(".assets.assetpack-staging"))?.files.count ?? 0 >= 3)
        // A run that fails while planning does not touch it (the parent lists as before) ...
        try RawZip([RawZip.file("../evil", [1])]).write(to: work.file("hostile.zip"))
        let before = HostileStage.allNames(work.path)
        #expect(throws: AssetPackError.self) {
            try AssetInstaller(source: try ZipAssetSource(path: work.file("hostile.zip")), destination: destination).installSynchronously()
        }
        #expect(HostileStage.allNames(work.path) == before)
        // ... and the next source removes it and starts afresh.
        let result = try AssetInstaller(source: try ZipAssetSource(path: work.file("new.zip")), destination: destination,
                                        options: ExpansionOptions(jobs: 1)).installSynchronously()
        #expect(result.filesResumed == 0)
        #expect(result.filesWritten == Self.tree.files.count)
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
        #expect(hiddenNames(work.path) == [])
    }

    @Test func discardPartialInstallRemovesTheStagingTreeOnRequest() throws {
        let work = try TemporaryDirectory("cleanup-discard")
        try Self.writeTree(in: work)
        let destination = work.file("assets")
        let installer = try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: destination)
        #expect(try installer.discardPartialInstall() == false, "nothing to discard")
        try Self.interrupt(installer.source, into: destination, after: 2)
        #expect(hiddenNames(work.path) == [".assets.assetpack-staging"])
        #expect(try installer.discardPartialInstall() == true)
        #expect(hiddenNames(work.path) == [])
        #expect(try installer.discardPartialInstall() == false)
        let result = try installer.installSynchronously()
        #expect(result.filesResumed == 0)
        #expect(DiskTree.read(destination) == DiskTree(Self.tree))
        // The installed tree itself is never touched.
        #expect(try installer.discardPartialInstall() == false)
        #expect(try installer.installSynchronously().upToDate)
        #expect(try AssetInstaller(source: installer.source, destination: work.file("missing/assets")).discardPartialInstall() == false)
    }

    @Test func discardPartialInstallPutsBackAPreviousTreeLeftWithoutADestination() throws {
        // A crash between the two renames of a switch where names cannot be swapped: the previous tree
        // waits under its aside name, the new complete tree in staging. Discarding keeps the previous one.
        let work = try TemporaryDirectory("cleanup-discard-previous")
        try Self.writeTree(in: work)
        let installer = try AssetInstaller(source: DirectorySource(root: work.file("tree")), destination: work.file("assets"))
        try installer.installSynchronously()
        try FileManager.default.moveItem(atPath: work.file("assets"), toPath: work.file(".assets.assetpack-previous"))
        try work.write(".assets.assetpack-staging/part0.bin", [1])
        #expect(try installer.discardPartialInstall() == true)
        #expect(hiddenNames(work.path) == [])
        #expect(DiskTree.read(work.file("assets")) == DiskTree(Self.tree))
        #expect(try installer.installSynchronously().upToDate)
    }
}
