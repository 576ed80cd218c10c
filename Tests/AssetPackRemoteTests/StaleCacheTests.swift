import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A cache that keeps serving an old copy of a file after the bundle's pointer (identity, manifest, signature)
/// moved never gives a mixed tree: every byte is checked against the new manifest, and the install ends in one
/// clear error naming the file, the previous tree in place (nginx's slice cache and Varnish keep the old pack), or
/// completes with the new tree (Squid, which does not cache ranges). Names a cache may keep must not be reused
/// for other contents: ``CacheAndStoreDeliveryTests`` publishes each version under a folder of its own.
@Suite struct StaleCacheTests {
    @Test(arguments: [CachingProxy.Kind.nginxSlice, .varnish, .squid])
    func aCacheServingAnOldCopyAfterThePointerMovedNeverGivesAMixedTree(_ kind: CachingProxy.Kind) async throws {
        let fixture = try await RemoteInstallFixture(route: .cache(kind))
        let version1 = RemoteInstallFixture.tree(version: 1), version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version1)
        try await fixture.install()
        // The same names, new contents: the origin lets caches keep the files for an hour, not the pointer.
        try fixture.publish(version2)
        // Squid forwards ranges uncached: it gives the new bytes, and the upgrade completes.
        guard kind != .squid else {
            try await fixture.install()
            #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
            return
        }
        let error = await expectFailure { try await fixture.install() }
        #expect(error?.code == .verification)
        let changed = try [fixture.storage(of: "text/0/f7.txt").file, fixture.storage(of: "data/big.txt").file]
        #expect(changed.map { fixture.url.absoluteString + "/" + $0 }.contains(error?.path ?? ""), "\(String(describing: error))")
        #expect(error?.message.contains("a cache in front of it") == true, "\(String(describing: error))")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
    }
}
