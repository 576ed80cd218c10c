import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Names a CDN can cache for ever: a bundle built with immutable names and published again in place upgrades
/// through a cache that keeps every object for a year (and never the pointer) to the exact new tree, fetching no
/// unchanged object from the origin again; built with names reused between versions, the same upgrade meets the
/// cache's old pack and ends in a verification error, the previous tree in place.
@Suite struct ImmutableNamesDeliveryTests {
    @Test(arguments: [true, false])
    func anUpgradeThroughACacheThatKeepsObjectsForAYear(immutableNames: Bool) async throws {
        let fixture = try await RemoteInstallFixture(route: .cache(.nginxForever))
        fixture.immutableNames = immutableNames
        let version1 = RemoteInstallFixture.tree(version: 1), version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version1)
        try await fixture.install()
        let objects = try Set(version1.keys.map { try fixture.storage(of: $0).file })
        try fixture.publish(version2)
        guard immutableNames else {
            let error = await expectFailure { try await fixture.install() }
            #expect(error?.code == .verification, "\(String(describing: error))")
            #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
            return
        }
        let before = await fixture.requests().count
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        let kept = try Set(version2.keys.map { try fixture.storage(of: $0).file }).intersection(objects)
        #expect(!kept.isEmpty, "unchanged objects keep their names")
        let asked = await fixture.requests().dropFirst(before).map(\.path)
        #expect(!asked.contains { path in kept.contains { path.hasSuffix($0) } },
                "the cache served the kept objects: \(asked)")
    }
}
