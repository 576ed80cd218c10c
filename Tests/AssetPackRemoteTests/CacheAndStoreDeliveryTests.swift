import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A bundle installed and upgraded through real caches (nginx's slice cache, Varnish, Squid) and from an
/// S3-compatible store (SeaweedFS): each step gives the exact tree, and the client receives exactly the bytes it
/// receives from nginx itself for the same steps (counted where they leave for the client). Kill-then-resume on
/// the same routes is in ``RemoteInstallFaultTests``.
@Suite struct CacheAndStoreDeliveryTests {
    @Test(arguments: Route.throughCachesAndStores)
    func installAndUpgradeGiveExactTreesAndTheBytesNginxSends(_ route: Route) async throws {
        let moved = try await Self.installThenUpgrade(route)
        let plain = try await Self.installThenUpgrade(.direct)
        #expect(moved == plain, "bytes received for the install and the upgrade through \(route), and from nginx")
    }

    /// Installs version 1, then upgrades to version 2, each published under a folder of its own (names a cache
    /// may keep for an hour never change meaning), checking each tree; the bytes the client received for each.
    static func installThenUpgrade(_ route: Route) async throws -> [UInt64] {
        let fixture = try await RemoteInstallFixture(route: route)
        var moved: [UInt64] = []
        for version in 1...2 {
            fixture.folder = "app-v\(version).bundle"
            let files = RemoteInstallFixture.tree(version: version)
            try await fixture.publishOnRoute(files)
            let before = await fixture.bytesReceived()
            try await fixture.install()
            #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
            moved.append(await fixture.bytesReceived() - before)
        }
        return moved
    }
}
