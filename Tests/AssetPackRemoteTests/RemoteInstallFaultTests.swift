import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A remote install through the fault proxy: every fault ends in the right tree after retries, or in a clear
/// error with the previous tree intact; a server that ignores `Range` still works; a CLI run killed with
/// SIGKILL in the middle of the large file resumes without fetching much again, also through caches and stores.
@Suite struct RemoteInstallFaultTests {
    /// Faults on single responses. They hit requests 1 (the manifest), 4 and later ones (files and blocks, in
    /// whatever order the workers ask; 4 is the signature when the manifest had to be fetched again).
    static let faults: [(String, FaultProxy.Fault)] = [
        ("drop", .dropAfter(bytes: 100)), ("503", .status(503)), ("truncate", .truncate(bytes: 10)),
        ("flip", .flipByte(at: 5)), ("stall", .stall(afterBytes: 10, seconds: 1)), ("ignore range", .ignoreRange),
    ]

    @Test(arguments: faults.map(\.0))
    func aFaultOnSomeResponsesEndsInTheRightTree(_ name: String) async throws {
        let fault = try #require(Self.faults.first { $0.0 == name }?.1)
        let fixture = try await RemoteInstallFixture(faults: { [1, 4, 8, 13, 21].contains($0) ? fault : .none })
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        try await fixture.install(options: testOptions(timeout: .milliseconds(300)))
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2)
        try await fixture.install(options: testOptions(timeout: .milliseconds(300)))
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
    }

    @Test func aServerThatIgnoresRangeOnEveryRequestStillUpgrades() async throws {
        let fixture = try await RemoteInstallFixture(faults: { _ in .ignoreRange })
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        try await fixture.install()
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(await fixture.requests().allSatisfy { $0.status == 200 })
    }

    @Test func aServerThatKeepsFailingIsANetworkErrorAndThePreviousTreeStays() async throws {
        let failing = Flag()
        let fixture = try await RemoteInstallFixture(faults: { number in failing.isSet && number > 0 ? .status(500) : .none })
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        try await fixture.install()
        try fixture.publish(RemoteInstallFixture.tree(version: 2))
        _ = failing.set()
        let error = await expectFailure { try await fixture.install(options: testOptions(attempts: 2)) }
        #expect(error?.code == .network)
        #expect(error?.message.contains("HTTP 500") == true)
        #expect(error?.path?.hasPrefix(fixture.url.absoluteString) == true)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
    }

    @Test func aServerLostInTheMiddleOfALargeFileLeavesItsBlocksForTheNextRun() async throws {
        let failing = Flag()
        // Requests 0–2 are the identity, the manifest and its signature; then runs of adjacent chunks, at most
        // 64 KiB each, on one connection: the server fails from the tenth request on.
        let fixture = try await RemoteInstallFixture(faults: { number in number >= 10 && !failing.isSet ? .status(500) : .none })
        let files = ["data/big.txt": RemoteInstallFixture.tree(version: 1)["data/big.txt"]!]
        try fixture.publish(files)
        var options = testOptions(attempts: 1, concurrency: 1)
        options.maxRequestBytes = 64 << 10
        let error = await expectFailure { try await fixture.install(options: options) }
        #expect(error?.code == .network)
        let staged = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.file("installed/.assets.assetpack-staging/data"))
        #expect(staged.contains(".assetpack-tmp-blocks-big.txt"), "the journal is kept: \(staged)")
        _ = failing.set()
        let first = await fixture.requests().filter { $0.path.hasSuffix("big.txt.zip") && $0.status == 206 }
        let result = try await fixture.install(options: options)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        #expect(result.bytesResumed > 0, "the chunks fetched before the server failed are kept")
        let second = await fixture.requests().filter { $0.path.hasSuffix("big.txt.zip") && $0.status == 206 }.dropFirst(first.count)
        let compressed = try #require(try fixture.storage(of: "data/big.txt").compressedSize)
        #expect(first.count == 7 && !second.isEmpty)
        #expect((first + second).reduce(0) { $0 + $1.bodyBytes } == compressed, "no chunk is fetched twice")
    }

    @Test(arguments: [Route.direct] + Route.throughCachesAndStores)
    func aRunKilledMidDownloadResumesWithoutFetchingMuchAgain(_ route: Route) async throws {
        let fixture = try await RemoteInstallFixture(route: route)
        var files = RemoteInstallFixture.tree(version: 1)
        var random = SeededRandom(seed: 99)
        files["data/huge.txt"] = random.text(12 << 20)
        try await fixture.publishOnRoute(files)
        let started = ContinuousClock.now
        try await fixture.expandKilledThenResumed(afterBytes: 6 << 20)
        let seconds = ContinuousClock.now - started
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let downloaded = await fixture.bytesReceived()
        report("\(route.testDescription)\tkilled, resumed\t\(seconds)\t\(downloaded)")
        let size = try fixture.bundleSize()
        // What was in flight when the run was killed is lost: at most one request of runs of adjacent chunks
        // (2 MiB, FetchOptions.maxRequestBytes) per connection, beside the socket buffers; nothing kept is fetched again (less than twice: no start over).
        let inFlight = FetchOptions().maxConcurrentRequests * Int(FetchOptions().maxRequestBytes)
        #expect(downloaded < size + UInt64(inFlight) && Double(downloaded) < 2 * Double(size),
                "\(downloaded) bytes downloaded for a bundle of \(size)")
    }
}
