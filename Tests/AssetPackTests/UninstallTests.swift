import AssetPack
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `InstalledTree.uninstall(at:)`: removes only what assetpack installed, never through a link.
@Suite struct UninstallTests {
    static let tree = AssetTree(files: ["a.txt": Array("alpha".utf8), "dir/b.bin": Array(repeating: 3, count: 3_000)],
                                emptyDirectories: ["empty"])

    private func install(_ scratch: TemporaryDirectory, to name: String = "out") throws -> AssetInstaller {
        try Self.tree.write(to: scratch.file("src"))
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("src")), destination: scratch.file(name))
        try installer.installSynchronously()
        return installer
    }

    @Test func theTreeItsRecordAndLeftoversAreRemoved() throws {
        let scratch = try TemporaryDirectory("uninstall")
        let installer = try install(scratch)
        try mkdir(scratch.file(".out.assetpack-staging/.assetpack"))
        try scratch.write("out/notes.txt", text: "app data")
        let identity = try InstalledTree.status(at: scratch.file("out")).installed?.identity
        let result = try InstalledTree.uninstall(at: scratch.file("out"))
        #expect(result.identity != nil && result.identity == identity)
        #expect(result.files == 2 && result.bytes == 3_005)
        #expect(result.unknown == ["notes.txt"])
        #expect(result.leftovers == [scratch.file(".out.assetpack-staging")])
        #expect(folderNames(scratch.path) == ["src"])
        #expect(try InstalledTree.status(at: scratch.file("out")).state == .notInstalled)

        let again = try installer.uninstall()
        #expect(!again.removedAnything && again.identity == nil && again.leftovers == [])
        try installer.installSynchronously()
        #expect(DiskTree.read(scratch.file("out")) == DiskTree(Self.tree), "installs again afterwards")
    }

    @Test func aFolderWithoutARecordAFileAndALinkAreRefused() throws {
        let scratch = try TemporaryDirectory("uninstall-refuse")
        try scratch.write("foreign/x.txt", text: "x")
        try mkdir(scratch.file("empty"))
        try scratch.write("file", text: "f")
        _ = try install(scratch)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link"), withDestinationPath: "out")
        let refusals: [(String, String)] = [
            ("foreign", "holds no install record (.assetpack/identity); refusing to remove a folder that assetpack did not install"),
            ("empty", "holds no install record (.assetpack/identity); refusing to remove a folder that assetpack did not install"),
            ("file", "the destination exists and is a file, not a folder"),
            ("link", "the destination exists and is a symbolic link, not a folder"),
        ]
        for (name, message) in refusals {
            let error = #expect(throws: AssetPackError.self) { try InstalledTree.uninstall(at: scratch.file(name)) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.description == scratch.file(name) + ": " + message)
        }
        #expect(folderNames(scratch.file("foreign")) == ["x.txt"])
        #expect(folderNames(scratch.path) == ["empty", "file", "foreign", "link", "out", "src"])
        #expect(DiskTree.read(scratch.file("out")) == DiskTree(Self.tree), "the link's target is untouched")
        for path in ["", "/", ".", "..", scratch.path + "/.."] {
            #expect(throws: AssetPackError.self) { try InstalledTree.uninstall(at: path) }
        }
    }

    @Test func linksInsideTheTreeAreRemovedNeverFollowed() throws {
        let scratch = try TemporaryDirectory("uninstall-links")
        _ = try install(scratch)
        try scratch.write("precious/keep.txt", text: "keep")
        try FileManager.default.createSymbolicLink(atPath: scratch.file("out/escape"), withDestinationPath: scratch.file("precious"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("out/dir/up"), withDestinationPath: "../..")
        let result = try InstalledTree.uninstall(at: scratch.file("out"))
        #expect(result.unknown == ["dir/up", "escape"])
        #expect(folderNames(scratch.path) == ["precious", "src"])
        #expect(folderNames(scratch.file("precious")) == ["keep.txt"])
        #expect(DiskTree.read(scratch.file("src")) == DiskTree(Self.tree))
    }

    @Test func itWaitsForTheInstallLock() throws {
        let scratch = try TemporaryDirectory("uninstall-lock")
        _ = try install(scratch)
        // Hold the lock an install holds: an exclusive flock of the destination's parent folder.
        let parent = open(scratch.path, O_RDONLY | O_DIRECTORY)
        defer { close(parent) }
        #expect(flock(parent, LOCK_EX) == 0)
        let done = DispatchSemaphore(value: 0)
        let path = scratch.file("out")
        Thread.detachNewThread {
            _ = try? InstalledTree.uninstall(at: path)
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 0.5) == .timedOut)
        #expect(FileManager.default.fileExists(atPath: path), "nothing is removed while an install holds the lock")
        flock(parent, LOCK_UN)
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
