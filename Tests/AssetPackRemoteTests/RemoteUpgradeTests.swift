import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// What makes an upgrade from a server cheap without weakening it: files linked from a tree that was flushed
/// when it was installed are not flushed again (the tree says so in its record), a large file comes in
/// requests no longer than the transport buffers, and the previous tree is left for the next call, which
/// removes it (also when a kill left it half removed).
@Suite(ExternalTool.nginx.needed)
struct RemoteUpgradeTests {
    /// The marker a durable install leaves in its record folder (`StagingNames.flushedMarkerFile`).
    static let marker = "installed/assets/.assetpack/flushed"

    @Test func onlyADurableInstallIsMarkedFlushedSoOnlyItsFilesSkipTheirFlushWhenLinked() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        try await fixture.install(durability: .none)
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file(Self.marker)), "a --no-sync tree is not marked")
        // Durable upgrade from a tree that was not flushed: its linked files are flushed with the rest, and
        // the new tree is marked.
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2)
        let durable = try await fixture.install(durability: .flushOnCommit)
        #expect(durable.filesLinked == version2.count - 2)
        #expect(FileManager.default.fileExists(atPath: fixture.scratch.file(Self.marker)))
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        // Durable upgrade from that flushed tree: linked, not flushed again; still a complete, marked tree.
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        let again = try await fixture.install(durability: .flushOnCommit)
        #expect(again.filesLinked == version1.count - 2)
        #expect(FileManager.default.fileExists(atPath: fixture.scratch.file(Self.marker)))
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
        // A --no-sync upgrade does not carry the mark over, though its files are linked from a marked tree.
        try fixture.publish(version2)
        try await fixture.install(durability: .none)
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file(Self.marker)))
        #expect(hiddenNames(fixture.scratch.file("installed")) == [Self.previous])
    }

    /// The name the previous tree waits under for the next call.
    static let previous = ".assets.assetpack-previous"

    @Test func thePreviousTreeIsLeftForTheNextCallWhichRemovesIt() async throws {
        let fixture = try await RemoteInstallFixture()
        let version1 = RemoteInstallFixture.tree(version: 1), version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version1)
        try await fixture.install()
        #expect(hiddenNames(fixture.scratch.file("installed")) == [], "a first install has no previous tree")
        try fixture.publish(version2)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(hiddenNames(fixture.scratch.file("installed")) == [Self.previous])
        // The next check finds the tree up to date with one request, and removes the previous tree.
        let before = await fixture.requests().count
        #expect(try await fixture.install().upToDate)
        let after = await fixture.site.server.requests(atLeast: before + 1)
        #expect(after.dropFirst(before).map(\.path) == ["/app.bundle/" + BundleManifest.identityPath])
        #expect(hiddenNames(fixture.scratch.file("installed")) == [])
        // An upgrade after an upgrade removes the older tree while it works and leaves only its own previous one.
        try fixture.publish(version1)
        try await fixture.install()
        try fixture.publish(version2)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(try snapshot(fixture.scratch.file("installed/" + Self.previous)) == expectedSnapshot(version1), "the complete previous tree")
        #expect(hiddenNames(fixture.scratch.file("installed")) == [Self.previous])
    }

    @Test func aPreviousTreeLeftHalfRemovedIsRemovedByTheNextUpgrade() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        try await fixture.install()
        // What a kill during the removal of the previous tree leaves: part of a tree under the aside name,
        // with a folder the app made read-only and a link.
        let aside = fixture.scratch.file("installed/.assets.assetpack-previous")
        try FileManager.default.createDirectory(atPath: aside + "/text/0/deep", withIntermediateDirectories: true)
        try Data("left".utf8).write(to: URL(fileURLWithPath: aside + "/text/0/deep/f.txt"))
        try Data("left".utf8).write(to: URL(fileURLWithPath: aside + "/top.txt"))
        try FileManager.default.createSymbolicLink(atPath: aside + "/text/link", withDestinationPath: "/")
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: aside + "/text/0")
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(!FileManager.default.fileExists(atPath: aside + "/top.txt"), "the leftover is gone")
        #expect(hiddenNames(fixture.scratch.file("installed")) == [Self.previous], "only this upgrade's previous tree")
        // A half-removed previous tree beside an up-to-date destination: the up-to-date check removes it.
        try FileManager.default.createDirectory(atPath: aside + "/text/0/deep", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: aside + "/text/0")
        #expect(try await fixture.install().upToDate)
        #expect(hiddenNames(fixture.scratch.file("installed")) == [])
    }

    @Test func aLargeFileComesInRequestsOfAtMostMaxRequestBytes() async throws {
        let data = testBytes(300_000)
        let server = try await startNginx(["big.bin": data])
        var options = testOptions()
        options.maxRequestBytes = 64 << 10
        let (bytes, result) = try await fetchToMemory(RemoteFetcher(options: options), fileItem(server.url("big.bin"), data))
        #expect(bytes == data)
        #expect(result.requests == 5)
        let log = await server.requests(atLeast: 5)
        #expect(log.map(\.status) == [206, 206, 206, 206, 206])
        #expect(log.map(\.range) == ["bytes=0-65535", "bytes=65536-131071", "bytes=131072-196607", "bytes=196608-262143",
                                     "bytes=262144-299999"])
        #expect(log.reduce(0) { $0 + $1.bodyBytes } == UInt64(data.count), "no byte crosses the network twice")
    }
}
