import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A bundle installed and upgraded through real caches (nginx's slice cache, Varnish, Squid) and from an
/// S3-compatible store (SeaweedFS): each step gives the exact tree, the dry run before it announces exactly the
/// bytes of file data the client then receives, and the client receives exactly the bytes it receives from nginx
/// itself for the same steps (counted where they leave for the client). Kill-then-resume on the same routes is in
/// ``RemoteInstallFaultTests``.
@Suite struct CacheAndStoreDeliveryTests {
    /// Plan against bytes through each route and from nginx itself: ``installThenUpgrade(_:)`` asserts them.
    @Test(arguments: Route.throughCachesAndStores)
    func installAndUpgradeGiveExactTreesThePlannedBytesAndTheBytesNginxSends(_ route: Route) async throws {
        let moved = try await Self.installThenUpgrade(route).bytes
        let plain = try await Self.installThenUpgrade(.direct).bytes
        #expect(moved == plain, "bytes received for the install and the upgrade through \(route), and from nginx")
    }

    /// Varnish in front of an origin that gzips answers the ranges of a file it still streams in with 200 and the
    /// whole file: the fetcher cuts the wanted bytes out (and stops reading there), so the trees are exact, though
    /// more bytes cross than from nginx (those the proxy sent before the connection closed).
    @Test func rangesAnsweredWithWholeFilesByVarnishStillGiveExactTrees() async throws {
        let (moved, log, pointers) = try await Self.installThenUpgrade(.cache(.varnishBeforeGzip))
        let plain = try await Self.installThenUpgrade(.direct)
        #expect(log.contains { $0.range != nil && $0.status == 200 }, "a range answered with the whole file")
        // File data only: the gzipping origin also compresses the manifest, which nginx here does not.
        let data = zip(moved, pointers).map { $0 - min($0, $1) }, plainData = zip(plain.bytes, plain.pointers).map { $0 - $1 }
        #expect(zip(data, plainData).allSatisfy { $0 >= $1 }, "\(data) through Varnish, \(plainData) from nginx")
        #expect(zip(pointers, plain.pointers).allSatisfy { $0 < $1 }, "the manifest came compressed: \(pointers), \(plain.pointers)")
    }

    /// Installs version 1, then upgrades to version 2 (one small file and one 64 KiB block changed, about 1 % of
    /// the bytes), each published under a folder of its own (names a cache may keep for an hour never change
    /// meaning), each after a dry run; checks each tree, and that the install received, in file data, exactly the
    /// bytes the dry run announced, and (where the answers are ranges, not whole files) that the server the client
    /// talks to sent exactly those and the pointer. Returns the bytes the client received for each install, and
    /// the requests it made, and the bytes of the identity, manifest and signature it received for each.
    /// With `ASSETPACK_DELIVERY_REPORT=FILE` (`Tools/measure-cache-delivery.sh`), a line per step goes to FILE:
    /// route, step, seconds, bytes, bytes planned.
    static func installThenUpgrade(_ route: Route) async throws -> (bytes: [UInt64], log: [NginxServer.Request], pointers: [UInt64]) {
        let fixture = try await RemoteInstallFixture(route: route)
        var moved: [UInt64] = [], pointers: [UInt64] = []
        for version in 1...2 {
            fixture.folder = "app-v\(version).bundle"
            let files = RemoteInstallFixture.tree(version: version)
            try await fixture.publishOnRoute(files)
            let before = await fixture.bytesReceived()
            let plan = try UpdateSizeTests.dryRun(fixture)
            let planned = await fixture.bytesReceived()
            let started = ContinuousClock.now
            let download = try await fixture.installCountingDownload()
            let seconds = ContinuousClock.now - started
            #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
            moved.append(await fixture.bytesReceived() - planned)
            let (data, pointer) = (try #require(plan.bytesToFetch), try #require(plan.manifestBytes))
            pointers.append(pointer)
            #expect(download == (data, data), "\(route) v\(version): file data received \(download), planned \(data)")
            if case .cache(.varnishBeforeGzip) = route {} else {
                let sent = "sent \(planned - before) for the dry run, \(moved.last!) for the install"
                #expect(planned - before == pointer && moved.last! == data + pointer,
                        "\(route) v\(version): \(sent); planned \(pointer) + \(data)")
            }
            let step = version == 1 ? "install" : "upgrade"
            report("\(route.testDescription)\t\(step)\t\(seconds)\t\(moved.last!)\t\(data + pointer)")
        }
        return (moved, await fixture.site.client.requests(), pointers)
    }
}

/// Appends `line` to the file `ASSETPACK_DELIVERY_REPORT` names, if any (`Tools/measure-cache-delivery.sh`).
func report(_ line: String) {
    guard let path = ProcessInfo.processInfo.environment["ASSETPACK_DELIVERY_REPORT"],
          let file = FileHandle(forWritingAtPath: path) ?? (FileManager.default.createFile(atPath: path, contents: nil)
              ? FileHandle(forWritingAtPath: path) : nil) else { return }
    file.seekToEndOfFile()
    file.write(Data((line + "\n").utf8))
    try? file.close()
}
