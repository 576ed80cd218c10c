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
    /// With `ASSETPACK_DELIVERY_REPORT=FILE` (`Tools/measure-cache-delivery.sh`), a line per step goes to FILE:
    /// route, step, seconds, bytes.
    static func installThenUpgrade(_ route: Route) async throws -> [UInt64] {
        let fixture = try await RemoteInstallFixture(route: route)
        var moved: [UInt64] = []
        for version in 1...2 {
            fixture.folder = "app-v\(version).bundle"
            let files = RemoteInstallFixture.tree(version: version)
            try await fixture.publishOnRoute(files)
            let before = await fixture.bytesReceived()
            let started = ContinuousClock.now
            try await fixture.install()
            let seconds = ContinuousClock.now - started
            #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
            moved.append(await fixture.bytesReceived() - before)
            report("\(route.testDescription)\t\(version == 1 ? "install" : "upgrade")\t\(seconds)\t\(moved.last!)")
        }
        return moved
    }
}

/// Appends `line` to the file `ASSETPACK_DELIVERY_REPORT` names, if any.
private func report(_ line: String) {
    guard let path = ProcessInfo.processInfo.environment["ASSETPACK_DELIVERY_REPORT"],
          let file = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil)
              ? FileHandle(forWritingAtPath: path) : nil) else { return }
    file.seekToEndOfFile()
    file.write(Data((line + "\n").utf8))
    try? file.close()
}
