import AssetPack
import Foundation
import Testing
import TestSupport

/// `InstalledTree.status(at:)` and `AssetInstaller.status()`: what a destination holds, from its record,
/// names and sizes.
@Suite struct InstallStatusTests {
    static let v1 = AssetTree(files: [
        "a.txt": Array("alpha".utf8), "dir/b.bin": Array(repeating: 3, count: 3_000), "dir/c.bin": Array(repeating: 4, count: 5_000),
    ], emptyDirectories: ["empty"])
    static let v2 = AssetTree(files: ["a.txt": Array("alpha, again".utf8), "dir/b.bin": Array(repeating: 3, count: 3_000)])

    @Test func nothingThereIsNotInstalled() throws {
        let scratch = try TemporaryDirectory("status-none")
        let missing = try InstalledTree.status(at: scratch.file("nowhere/assets"))
        #expect(missing.state == .notInstalled && missing.installed == nil && missing.staging == nil && missing.unknown == [])
        #expect(missing.destination == scratch.file("nowhere/assets"))
        try mkdir(scratch.file("empty"))
        #expect(try InstalledTree.status(at: scratch.file("empty")).state == .notInstalled)
        try scratch.write("foreign/x.txt", text: "x")
        try mkdir(scratch.file("foreign/sub"))
        let foreign = try InstalledTree.status(at: scratch.file("foreign"))
        #expect(foreign.state == .notInstalled)
        #expect(foreign.unknown == ["sub/", "x.txt"])
        try scratch.write("file", text: "f")
        let error = #expect(throws: AssetPackError.self) { try InstalledTree.status(at: scratch.file("file")) }
        #expect(error?.description == scratch.file("file") + ": the destination exists and is a file, not a folder")
    }

    @Test func anInstalledTreeSaysItsIdentityFilesBytesAndWhen() throws {
        let scratch = try TemporaryDirectory("status-installed")
        try Self.v1.write(to: scratch.file("v1"))
        let before = Date().addingTimeInterval(-2)
        let result = try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: scratch.file("out")).installSynchronously()
        let status = try InstalledTree.status(at: scratch.file("out"))
        #expect(status.state == .installed)
        #expect(status.installed?.identity == result.identity)
        #expect(status.installed?.files == 3)
        #expect(status.installed?.bytes == 8_005)
        let when = try #require(status.installed?.installedAt)
        #expect(when >= before && when <= Date().addingTimeInterval(2))
        #expect(status.problems == [] && status.unknown == [] && status.staging == nil && status.sourceIdentity == nil)
    }

    @Test func aSourceOfAnotherIdentityMakesItOutdated() throws {
        let scratch = try TemporaryDirectory("status-outdated")
        try Self.v1.write(to: scratch.file("v1"))
        try Self.v2.write(to: scratch.file("v2"))
        let v1 = try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: scratch.file("out"))
        let identity = try v1.installSynchronously().identity
        #expect(try v1.status().state == .installed)
        #expect(try v1.status().sourceIdentity == identity)
        let v2 = try AssetInstaller(source: DirectorySource(root: scratch.file("v2")), destination: scratch.file("out"))
        let outdated = try v2.status()
        #expect(outdated.state == .outdated)
        #expect(outdated.installed?.identity == identity)
        #expect(outdated.sourceIdentity != identity)
        #expect(try v2.installSynchronously().identity == outdated.sourceIdentity, "the identity status compares is the one install records")
    }

    @Test func anInterruptedInstallIsPartialWithItsResumableFiles() throws {
        let scratch = try TemporaryDirectory("status-partial")
        try Self.v1.write(to: scratch.file("v1"))
        let installer = try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: scratch.file("out"),
                                           options: ExpansionOptions(jobs: 1))
        let cancellation = ExpansionCancellation()
        #expect(throws: AssetPackError.self) {
            try installer.installSynchronously(progress: { if $0.filesWritten >= 2 { cancellation.cancel() } }, cancellation: cancellation)
        }
        let status = try installer.status()
        #expect(status.state == .partial)
        let staging = try #require(status.staging)
        #expect(staging.path == scratch.file(".out.assetpack-staging"))
        #expect(staging.identity == status.sourceIdentity)
        #expect(!staging.complete)
        // Written in path order with one job: the first two files.
        #expect(staging.files == 2 && staging.bytes == 5 + 3_000)
        try installer.installSynchronously()
        #expect(try installer.status().staging == nil)
    }

    @Test func changesAreSeenFromSizesAndModesWithoutReadingContents() throws {
        let scratch = try TemporaryDirectory("status-changes")
        try Self.v1.write(to: scratch.file("v1"))
        try AssetInstaller(source: DirectorySource(root: scratch.file("v1")), destination: scratch.file("out")).installSynchronously()
        try TreeDamage.delete(scratch.file("out/a.txt"))
        try chmod(scratch.file("out/dir/b.bin"), 0o600)
        try TreeDamage.flipByte(scratch.file("out/dir/c.bin"), at: 1)  // same size and mode: status cannot see it
        try FileManager.default.removeItem(atPath: scratch.file("out/empty"))
        try scratch.write("out/notes.txt", text: "app data")
        let status = try InstalledTree.status(at: scratch.file("out"))
        #expect(status.state == .installed)
        #expect(status.problems.map(\.description) == ["a.txt: missing", "dir/b.bin: mode 0600, recorded 0644", "empty: missing"])
        #expect(status.unknown == ["notes.txt"])
        #expect(FileManager.default.fileExists(atPath: scratch.file("out/notes.txt")), "status never removes anything")
    }
}
