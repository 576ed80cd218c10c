import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// The app decides before paying: an update larger than its threshold is put to it with its plan, and a refusal
/// writes nothing; a cap on the bytes per second holds over all connections; a remote install reports through
/// the same status stream as a local one, with the bytes downloaded against the plan.
@Suite(ExternalTool.nginx.needed)
struct ConsentAndCostTests {
    @Test func anUpdateAboveTheThresholdIsPutToTheAppAndARefusalWritesNothing() async throws {
        let fixture = try await RemoteInstallFixture()
        let version1 = RemoteInstallFixture.tree(version: 1), version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version1)
        try await fixture.install()
        try fixture.publish(version2)
        let asked = Recorded<InstallPreview>()
        var options = testOptions()
        options.consent = DownloadConsent(above: 20) { plan in asked.add(plan); return false }
        let before = await fixture.settledRequests().count
        let error = await expectFailure { try await fixture.install(options: options) }
        #expect(error?.code == .declined, "\(String(describing: error))")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1), "the installed tree as it was")
        let paths = await fixture.settledRequests().dropFirst(before).map(\.path)
        #expect(paths.allSatisfy { $0.contains("/assetpack-meta/") }, "no file data fetched: \(paths)")
        let plan = try #require(asked.values.first)
        #expect(asked.values.count == 1 && (plan.bytesToFetch ?? 0) > 20 && plan.filesWritten == 2)
        // Allowed, the same update installs; under its threshold the app is not asked.
        options.consent = DownloadConsent(above: 20) { plan in asked.add(plan); return true }
        #expect(try await fixture.install(options: options).filesWritten == 2)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2) && asked.values.count == 2)
        try fixture.publish(version1)
        options.consent = DownloadConsent(above: 10 << 20) { plan in asked.add(plan); return false }
        try await fixture.install(options: options)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1) && asked.values.count == 2)
    }

    @Test func theByteRateCapHoldsOverAllConnections() async throws {
        let files = (0..<4).map { testBytes(150_000, seed: UInt64($0)) }
        let server = try await startNginx(Dictionary(uniqueKeysWithValues: files.enumerated().map { ("f\($0.offset).bin", $0.element) }))
        var options = testOptions()
        options.maxBytesPerSecond = 1 << 20
        let started = ContinuousClock.now
        let items = files.enumerated().map { fileItem(server.url("f\($0.offset).bin"), $0.element) }
        #expect(try await fetchEach(RemoteFetcher(options: options), items) == files)
        let elapsed = ContinuousClock.now - started
        // 600,000 bytes at 1 MiB/s take at least 0.57 s; a loose bound, whatever the machine's load.
        #expect(elapsed >= .milliseconds(500), "\(elapsed) for 600,000 bytes on 4 connections at 1 MiB/s")
    }

    @Test func aRemoteInstallReportsThroughTheStatusStreamWithTheBytesDownloaded() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let bundle = RemoteBundle(fixture.url)
        var statuses: [InstallUpdate] = []
        for try await status in bundle.statusUpdates(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                                     fetcher: RemoteFetcher(options: testOptions()), every: .zero) {
            statuses.append(status)
        }
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let downloads = statuses.compactMap { status -> (UInt64, UInt64)? in
            if case .downloading(let done, let total) = status { (done, total) } else { nil }
        }
        let fetched = await fixture.settledRequests().filter { !UpdateSizeTests.isPointer($0) }.reduce(0) { $0 + $1.bodyBytes }
        #expect(downloads.last.map { $0 == (fetched, fetched) } == true, "the last counts: every byte of the plan, \(downloads.last.debugDescription)")
        #expect(downloads.allSatisfy { $0.0 <= $0.1 } && downloads.count > 1)
        #expect(statuses.first == .planning && statuses.contains { if case .writing = $0 { true } else { false } })
        guard case .done(let result) = statuses.last else { Issue.record("no .done: \(statuses.suffix(3))"); return }
        #expect(!result.upToDate)
    }
}

/// Values recorded from any thread.
final class Recorded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []
    /// Records `value`.
    func add(_ value: Value) { lock.withLock { recorded.append(value) } }
    /// What was recorded, in order.
    var values: [Value] { lock.withLock { recorded } }
}
