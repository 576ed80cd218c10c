@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Faults of the machine rather than the archive: a full disk (a small tmpfs), a read-only destination,
/// a destination that is a file, an archive changed underneath the reader. Each is a clear error naming
/// the path; the previous complete tree stays; once the fault is gone, the next run succeeds. (Process
/// faults — `ulimit -f`, another user, SIGKILL — are in AssetPackCLITests/HostileArchiveCLITests.)
@Suite struct FaultTests {
    static let small = AssetTree(files: ["keep.txt": Array("version one\n".utf8)])
    static let large: AssetTree = {
        var random = SeededRandom(seed: 41)
        return AssetTree(files: ["keep.txt": Array("version two\n".utf8), "a.bin": random.bytes(700_000),
                                 "b.bin": random.bytes(700_000), "c.bin": random.bytes(700_000)])
    }()

    /// Writes `tree` as a folder source under `work` and installs it into `destination`.
    @discardableResult
    static func install(_ tree: AssetTree, named name: String, work: TemporaryDirectory, into destination: String,
                        freeSpace: UInt64? = nil) throws -> ExpansionResult {
        try? FileManager.default.removeItem(atPath: work.file(name))
        try FileManager.default.createDirectory(atPath: work.file(name), withIntermediateDirectories: true)
        try tree.write(to: work.file(name))
        var options = ExpansionOptions(jobs: 1)
        options.testSeam.freeSpace = freeSpace
        let installer = try AssetInstaller(source: DirectorySource(root: work.file(name)), destination: destination,
                                           options: options)
        return try installer.installSynchronously()
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs"))
    func aFullDiskDuringWritingIsNoSpaceAndTheNextRunSucceedsOnceThereIsRoom() throws {
        let disk = try SmallFileSystem("fault-full", size: "1m")
        let work = try TemporaryDirectory("fault-full-work")
        let destination = disk.path + "/assets"
        try Self.install(Self.small, named: "v1", work: work, into: destination)
        // Pretend the preflight saw room, so the writes themselves hit ENOSPC.
        let error = #expect(throws: AssetPackError.self) {
            try Self.install(Self.large, named: "v2", work: work, into: destination, freeSpace: 1 << 40)
        }
        expectError(error, .noSpace, mentions: [disk.path, "no space left on the device"])
        #expect(error?.errno == ENOSPC)
        #expect(DiskTree.read(destination) == DiskTree(Self.small))
        let staged = HostileStage.allNames(disk.path + "/.assets.assetpack-staging")
        #expect(!staged.contains { $0.contains(".assetpack-tmp-") }, "a temporary was left: \(staged)")
        // What stays in staging for the resume verified: no file cut short by the full disk.
        let stagedFiles = DiskTree.read(disk.path + "/.assets.assetpack-staging")?.files ?? [:]
        for (path, bytes) in stagedFiles {
            #expect(Self.large.files[path] == bytes ? true : false, "\(path) was left in staging with other bytes")
        }
        try disk.remount("size=8m")
        try Self.install(Self.large, named: "v2", work: work, into: destination)
        #expect(DiskTree.read(destination) == DiskTree(Self.large))
        #expect(folderNames(disk.path) == ["assets"])
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs"))
    func tooLittleSpaceIsRefusedBeforeWriting() throws {
        let disk = try SmallFileSystem("fault-preflight", size: "1m")
        let work = try TemporaryDirectory("fault-preflight-work")
        let destination = disk.path + "/assets"
        try Self.install(Self.small, named: "v1", work: work, into: destination)
        let error = #expect(throws: AssetPackError.self) { try Self.install(Self.large, named: "v2", work: work, into: destination) }
        expectError(error, .noSpace, mentions: [destination, "not enough free space"])
        #expect(DiskTree.read(destination) == DiskTree(Self.small))
        #expect(folderNames(disk.path) == ["assets"], "a refused free-space check leaves nothing beside the destination")
    }

    @Test(.enabled(if: canMount, "needs root and tmpfs"))
    func aReadOnlyDestinationIsAClearErrorAndTheNextRunSucceedsWhenWritable() throws {
        let disk = try SmallFileSystem("fault-ro", size: "8m")
        let work = try TemporaryDirectory("fault-ro-work")
        let destination = disk.path + "/assets"
        try Self.install(Self.small, named: "v1", work: work, into: destination)
        try disk.remount("ro")
        let error = #expect(throws: AssetPackError.self) { try Self.install(Self.large, named: "v2", work: work, into: destination) }
        expectError(error, .io, mentions: [disk.path, "read-only file system: cannot write here"])
        #expect(error?.errno == EROFS)
        #expect(DiskTree.read(destination) == DiskTree(Self.small))
        try disk.remount("rw")
        try Self.install(Self.large, named: "v2", work: work, into: destination)
        #expect(DiskTree.read(destination) == DiskTree(Self.large))
    }

    @Test func aDestinationThatIsAFileIsRefusedAndLeftAlone() throws {
        let work = try TemporaryDirectory("fault-file")
        try work.write("assets", text: "a file, not a folder")
        let error = #expect(throws: AssetPackError.self) { try Self.install(Self.small, named: "v1", work: work, into: work.file("assets")) }
        expectError(error, .invalidArgument, mentions: [work.file("assets"), "not a folder"])
        #expect(try String(contentsOfFile: work.file("assets"), encoding: .utf8) == "a file, not a folder")
        #expect(folderNames(work.path) == ["assets", "v1"])
    }

    @Test func aDestinationBelowAFileIsAClearError() throws {
        let work = try TemporaryDirectory("fault-below-file")
        try work.write("blocker", text: "a file")
        let error = #expect(throws: AssetPackError.self) {
            try Self.install(Self.small, named: "v1", work: work, into: work.file("blocker/assets"))
        }
        #expect(error?.description == "\(work.file("blocker")): not a folder")
        #expect(error?.code == .io)
        #expect(try String(contentsOfFile: work.file("blocker"), encoding: .utf8) == "a file")
    }

    /// What another thread does to the archive once the first file is written.
    enum Tamper: String, CaseIterable, CustomTestStringConvertible {
        case truncate = "truncated"
        case overwrite = "overwritten with zeros"
        case remove = "removed and replaced"
        var testDescription: String { rawValue }
    }

    @Test(arguments: Tamper.allCases, Placement.allCases)
    func anArchiveChangedWhileItIsReadIsAnErrorNotACrash(_ tamper: Tamper, _ placement: Placement) throws {
        let stage = try HostileStage("fault-tamper")
        var random = SeededRandom(seed: 42)
        let contents = (0..<4).map { _ in random.bytes(300_000) }
        let entries = contents.enumerated().map { RawZip.file("part\($0.offset).bin", $0.element) }
        let (bytes, layout) = RawZip(entries).build()
        let path = stage.archivePath(placement).path
        try makeParent(path)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let source = try stage.source(placement)
        let installer = try AssetInstaller(source: source, destination: stage.destination, options: ExpansionOptions(jobs: 1))
        let tampered = ExpansionCancellation()  // used as a once-flag
        let outcome = Result { () throws(AssetPackError) in
            try installer.installSynchronously { progress in
                guard progress.filesWritten == 1, !tampered.isCancelled else { return }
                tampered.cancel()
                let thread = Thread { Self.apply(tamper, to: path, from: layout.dataOffsets[1]) }
                thread.start()
                while !thread.isFinished { usleep(1_000) }
            }
        }
        #expect(tampered.isCancelled, "the archive was tampered with")
        if tamper == .remove {
            // The reader keeps the descriptor it opened: a new file under the name changes nothing it reads.
            #expect(throws: Never.self) { try outcome.get() }
            #expect(DiskTree.read(stage.destination)?.files.count == 4)
            return
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the expansion succeeded on a changed archive")
            return
        }
        // Data that no longer checks out is the one mismatch of a file written (WriteCheck); a cut archive is the archive's.
        expectError(error, tamper == .truncate ? .archive : .verification, mentions: [stage.archivePath(placement).shown, "\"part1.bin\""])
        #expect(error.zipError?.code == (tamper == .truncate ? .truncated : .checksum))
        // A damaged archive is the input's fault: its staging tree (part0.bin verified) is removed too.
        stage.expectIntact(absent: ["part1.bin", "part2.bin", "part3.bin"])
    }

    static func apply(_ tamper: Tamper, to path: String, from offset: Int) {
        switch tamper {
        case .truncate:
            _ = truncate(path, off_t(offset))
        case .overwrite:
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            try? handle.seek(toOffset: UInt64(offset))
            try? handle.write(contentsOf: Data(count: 600_000))
            try? handle.close()
        case .remove:
            // A new file under the name: the open descriptor still reads the old bytes, which stay valid.
            try? FileManager.default.removeItem(atPath: path)
            try? Data("replaced".utf8).write(to: URL(fileURLWithPath: path))
        }
    }
}
