import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// The size of an update is known before a byte of file data is fetched: `RemoteBundle.dryRun` fetches only the
/// identity, manifest and signature, and the bytes and requests it then announces are exactly those nginx logs
/// for the install that follows, for a first install, an upgrade (one small file and one block of the large file
/// changed) and an install resumed after a kill.
@Suite(ExternalTool.nginx.needed)
struct UpdateSizeTests {
    @Test func aFirstInstallAndAnUpgradeFetchExactlyWhatTheDryRunAnnounced() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        let first = try await Self.expectInstallFetchesWhatItsDryRunAnnounced(fixture)
        try fixture.publish(RemoteInstallFixture.tree(version: 2))
        let upgrade = try await Self.expectInstallFetchesWhatItsDryRunAnnounced(fixture)
        #expect(upgrade.filesLinked > 0 && (upgrade.bytesToFetch ?? 0) < 2 * (64 << 10),
                "the upgrade fetches one small file and one or two 64 KiB chunks at most: \(upgrade)")
        let big = try #require(try fixture.storage(of: "data/big.txt").compressedSize)
        #expect((first.bytesToFetch ?? 0) > big && (first.requestsToFetch ?? 0) >= 3, "a first install fetches every chunk: \(first)")
        let upToDate = try Self.dryRun(fixture)
        #expect(upToDate.upToDate && upToDate.bytesToFetch == 0 && upToDate.requestsToFetch == 0 && upToDate.manifestRequests == 1)
    }

    @Test func anInstallResumedAfterAKillFetchesExactlyWhatTheDryRunAnnounced() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let fresh = try Self.dryRun(fixture)
        _ = try await fixture.expandKilled(afterBytes: 1_500_000)
        let resumed = try await Self.expectInstallFetchesWhatItsDryRunAnnounced(fixture)
        #expect((resumed.bytesToFetch ?? 0) < (fresh.bytesToFetch ?? 0) && (resumed.requestsToFetch ?? 0) < (fresh.requestsToFetch ?? 0),
                "what the killed run wrote is not fetched again: \(resumed.bytesToFetch ?? 0) of \(fresh.bytesToFetch ?? 0) bytes")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
    }

    /// Runs the dry run, then the install, and expects the install's requests for file data (the identity,
    /// manifest and signature apart) to be, in bytes and number, what the dry run announced, and the dry run to
    /// have fetched nothing else than those three, whose bytes it reports.
    static func expectInstallFetchesWhatItsDryRunAnnounced(_ fixture: RemoteInstallFixture,
                                                           sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> InstallPreview {
        let before = await fixture.settledRequests().count
        let preview = try dryRun(fixture)
        let planned = await fixture.settledRequests()
        let planning = planned.dropFirst(before)
        #expect(planning.allSatisfy(isPointer), "the dry run fetched file data: \(planning.map(\.path))", sourceLocation: sourceLocation)
        #expect(preview.manifestBytes == bytes(planning) && preview.manifestRequests == planning.count, sourceLocation: sourceLocation)
        try await fixture.install()
        let installing = await fixture.settledRequests().dropFirst(planned.count)
        let data = installing.filter { !isPointer($0) }
        #expect(preview.bytesToFetch == bytes(data), "bytes announced and fetched", sourceLocation: sourceLocation)
        #expect(preview.requestsToFetch == data.count, "requests announced and made", sourceLocation: sourceLocation)
        #expect(preview.manifestBytes == bytes(installing.filter(isPointer)), sourceLocation: sourceLocation)
        return preview
    }

    /// The dry run of an install of the fixture's bundle into its destination.
    static func dryRun(_ fixture: RemoteInstallFixture) throws -> InstallPreview {
        try RemoteBundle(fixture.url).dryRun(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                             fetcher: RemoteFetcher(options: testOptions()))
    }

    /// True for a request of the identity, the manifest or its signature.
    static func isPointer(_ request: NginxServer.Request) -> Bool {
        [BundleManifest.identityPath, BundleManifest.path, ManifestSignature.path].contains { request.path.hasSuffix("/" + $0) }
    }

    static func bytes(_ requests: some Sequence<NginxServer.Request>) -> UInt64 { requests.reduce(0) { $0 + $1.bodyBytes } }
}
