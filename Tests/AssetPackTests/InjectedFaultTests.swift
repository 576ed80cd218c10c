@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The faults of ``FaultTests`` that need root and a tmpfs there — a full disk, a failing device, a
/// read-only file system — played here without either, through the platform layer's test seam
/// (``FaultInjection``): chosen calls fail with the errno the real fault gives, for paths under this test's
/// own folder only, so tests running in parallel are not disturbed. Each is a clear error naming the path
/// with the call and errno as its cause; the previous tree stays; without the fault the next run succeeds.
/// Also here: names that are not UTF-8 in trees the installer removes (``FileName``'s policy).
@Suite struct InjectedFaultTests {
    /// Installs `FaultTests.small`, then `FaultTests.large` while `calls` fail with `errno` for paths under
    /// `folder` (of the test's own folder) ending with `suffix`; returns the error and the test's folder.
    private static func upgrade(failing calls: [String], with errno: Errno, endingWith suffix: String = "",
                                under folder: (TemporaryDirectory) -> String) throws -> (AssetPackError?, TemporaryDirectory) {
        let work = try TemporaryDirectory("injected-fault")
        try FaultTests.install(FaultTests.small, named: "v1", work: work, into: work.file("assets"))
        let faults = calls.map { FaultInjection.Fault($0, fails: errno, under: folder(work), endingWith: suffix) }
        faults.forEach(FaultInjection.install)
        defer { faults.forEach(FaultInjection.remove) }
        let error = #expect(throws: AssetPackError.self) {
            // The preflight must see room, so that the writes themselves hit the fault.
            try FaultTests.install(FaultTests.large, named: "v2", work: work, into: work.file("assets"), freeSpace: 1 << 40)
        }
        return (error, work)
    }

    /// The previous tree is whole, nothing half-written was kept in staging, and a run without the fault
    /// finishes the upgrade and leaves nothing beside the destination.
    private static func expectRecovery(_ work: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(DiskTree.read(work.file("assets")) == DiskTree(FaultTests.small), sourceLocation: sourceLocation)
        let staged = HostileStage.allNames(work.file(".assets.assetpack-staging"))
        #expect(!staged.contains { $0.contains(".assetpack-tmp-") }, "a temporary was left: \(staged)", sourceLocation: sourceLocation)
        for (path, bytes) in DiskTree.read(work.file(".assets.assetpack-staging"))?.files ?? [:] {
            #expect(FaultTests.large.files[path] == bytes ? true : false, "\(path) was left in staging with other bytes",
                    sourceLocation: sourceLocation)
        }
        try FaultTests.install(FaultTests.large, named: "v2", work: work, into: work.file("assets"))
        #expect(DiskTree.read(work.file("assets")) == DiskTree(FaultTests.large), sourceLocation: sourceLocation)
        #expect(folderNames(work.path) == ["assets", "v1", "v2"], sourceLocation: sourceLocation)
    }

    @Test func aFullDiskWhileWritingIsNoSpaceNamingTheFile() throws {
        // The large files fill the disk (the small staging marker before them still fit).
        let (error, work) = try Self.upgrade(failing: ["write", "pwrite"], with: .noSpace, endingWith: ".bin") {
            $0.file(".assets.assetpack-staging")
        }
        expectError(error, .noSpace, mentions: [work.file(".assets.assetpack-staging/"), "no space left on the device"])
        #expect(error?.errno == ENOSPC)
        #expect(error?.cause == .system(call: "write", errno: ENOSPC))
        try Self.expectRecovery(work)
    }

    @Test func aFailingDeviceWhileWritingIsAnIOError() throws {
        let (error, work) = try Self.upgrade(failing: ["write", "pwrite"], with: .ioError, endingWith: ".bin") {
            $0.file(".assets.assetpack-staging")
        }
        expectError(error, .io, mentions: [work.file(".assets.assetpack-staging/"), "input/output error"])
        #expect(error?.errno == EIO)
        try Self.expectRecovery(work)
    }

    @Test func aFailingDeviceWhileReadingTheSourceIsAnIOError() throws {
        let (error, work) = try Self.upgrade(failing: ["read", "pread"], with: .ioError) { $0.file("v2/keep.txt") }
        expectError(error, .io, mentions: [work.file("v2/keep.txt"), "input/output error"])
        #expect(error?.errno == EIO)
        try Self.expectRecovery(work)
    }

    @Test func aReadOnlyDestinationIsAClearError() throws {
        let changes = ["mkdirat", "mkdir", "unlinkat", "renameat", "renameat2", "linkat", "symlinkat", "fchmod", "fchmodat",
                       "write", "pwrite", "ftruncate"]
        let (error, work) = try Self.upgrade(failing: changes, with: .readOnlyFileSystem) { $0.file(".assets") }
        // The staging tree is the first thing written: the error names the folder the caller chose.
        #expect(error?.description == "\(work.path): read-only file system: cannot write here")
        #expect(error?.errno == EROFS)
        #expect(!FileManager.default.fileExists(atPath: work.file(".assets.assetpack-staging")))
        try Self.expectRecovery(work)
    }

    @Test func aFaultStaysInsideItsFolder() throws {
        let elsewhere = try TemporaryDirectory("injected-fault-elsewhere")
        let fault = FaultInjection.Fault("write", fails: .noSpace, under: elsewhere.file("other"))
        try FaultInjection.with(fault) {
            _ = try FaultTests.install(FaultTests.large, named: "v1", work: elsewhere, into: elsewhere.file("assets"))
        }
        #expect(DiskTree.read(elsewhere.file("assets")) == DiskTree(FaultTests.large))
    }

    /// Creates an empty file whose name is `name` + 0xFF (not UTF-8) in the folder `folder`.
    private static func makeUndecodable(_ name: String, in folder: String) throws {
        let path = (Array((folder + "/" + name).utf8) + [0xFF]).map { CChar(bitPattern: $0) } + [0]
        let made = creat(path, 0o644)
        try #require(made >= 0, "this file system refuses non-UTF-8 names")
        close(made)
    }

    /// A name that is not UTF-8, put into the destination by the app, is carried into the new version (by its
    /// bytes), and the previous tree is removed all the same.
    @Test func anUpgradeCarriesANameThatIsNotUTF8AndRemovesThePreviousTree() throws {
        let work = try TemporaryDirectory("undecodable-upgrade")
        try FaultTests.install(FaultTests.small, named: "v1", work: work, into: work.file("assets"))
        try FileManager.default.createDirectory(atPath: work.file("assets/app"), withIntermediateDirectories: true)
        try Self.makeUndecodable("made-by-the-app-", in: work.file("assets/app"))
        let result = try FaultTests.install(FaultTests.large, named: "v2", work: work, into: work.file("assets"))
        #expect(result.unknownKept == ["app/"])
        var expected = DiskTree(FaultTests.large)
        expected.directories.insert("app")
        var found = try #require(DiskTree.read(work.file("assets")))
        #expect(found.files.keys.filter { $0.hasPrefix("app/made-by-the-app-") }.count == 1, "the app's file is still there")
        let bundleFiles = found.files.filter { !$0.key.hasPrefix("app/") }
        found.files = bundleFiles
        #expect(found == expected)
        #expect(folderNames(work.path) == ["assets", "v1", "v2"])
    }

    @Test func aResumePrunesANameThatIsNotUTF8FromStaging() throws {
        let work = try TemporaryDirectory("undecodable-resume")
        try FaultTests.install(FaultTests.small, named: "v1", work: work, into: work.file("assets"))
        // An interrupted upgrade: the first write fails, the staging tree stays to be resumed.
        FaultInjection.with(FaultInjection.Fault("write", fails: .ioError, under: work.file(".assets.assetpack-staging/c"))) {
            _ = #expect(throws: AssetPackError.self) {
                try FaultTests.install(FaultTests.large, named: "v2", work: work, into: work.file("assets"))
            }
        }
        try Self.makeUndecodable("stray-", in: work.file(".assets.assetpack-staging"))
        try FaultTests.install(FaultTests.large, named: "v2", work: work, into: work.file("assets"))
        #expect(DiskTree.read(work.file("assets")) == DiskTree(FaultTests.large))
        #expect(folderNames(work.path) == ["assets", "v1", "v2"])
    }
}
