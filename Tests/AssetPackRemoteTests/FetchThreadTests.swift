import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Where a fetch runs: on the thread that asked (the installer's workers), never on Swift's cooperative pool,
/// so a slow server holds one thread of the install and nothing else; and how it stops (cancellation, a
/// connection dropped in the middle of a range).
struct FetchThreadTests {
    let data = testBytes(300_000, seed: 21)

    /// The bytes `request` of the bundle at `root` brings through a ``RemoteBundleDelivery``, as an
    /// installer's worker thread asks for them.
    static func deliver(_ request: DeliveryRequest, from root: URL, options: FetchOptions = testOptions(),
                        cancellation: ExpansionCancellation = ExpansionCancellation()) throws(AssetPackError) -> [UInt8] {
        let delivery = RemoteBundleDelivery(bundle: RemoteBundle(root), fetcher: RemoteFetcher(options: options), progress: nil,
                                            cancellation: cancellation)
        let sink = CollectingSink()
        try delivery.deliver(request, into: sink)
        return sink.bytes
    }

    @Test func aDeliveryCompletesWhileEveryThreadOfTheCooperativePoolIsBlocked() async throws {
        let server = try ScriptedHTTPServer { [data] _, _ in .init(Reply.ok(data).bytes, pieceSize: 64 << 10) }
        let width = ProcessInfo.processInfo.activeProcessorCount
        let pool = PoolBlocker(threads: width)
        let outcome = Locked<Result<[UInt8], AssetPackError>?>(nil)
        let request = DeliveryRequest(file: "f.bin", range: nil, length: UInt64(data.count))
        Thread.detachNewThread {
            let blocked = pool.waitUntilBlocked(seconds: 20)
            outcome.value = blocked ? Result { () throws(AssetPackError) in try Self.deliver(request, from: server.url("")) } : nil
            pool.release()
        }
        // Each blocker holds a pool thread until the delivery above ended (or 30 s passed: then it failed).
        let released = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<width { group.addTask { pool.block(seconds: 30) } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(released.allSatisfy { $0 }, "the delivery needed a thread of the blocked pool")
        #expect(try #require(outcome.value).get() == data)
    }

    @Test func cancellingTheInstallEndsADeliveryWaitingForAStalledServer() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", stall: 600) }
        let request = DeliveryRequest(file: "f.bin", range: nil, length: 10)
        let (error, waited) = try await Self.cancelledAfter(.milliseconds(200)) { cancellation throws(AssetPackError) in
            _ = try Self.deliver(request, from: server.url(""), options: testOptions(timeout: .seconds(600)), cancellation: cancellation)
        }
        #expect(error.code == .cancelled)
        #expect(waited < .seconds(5), "a stalled read must notice the cancellation, not wait for its timeout")
    }

    @Test func aCancellationDuringTheWaitBeforeARetryEndsTheFetch() async throws {
        let (socket, port) = try LoopbackSocket.bound()
        defer { close(socket) }
        var options = testOptions()
        options.retry = RetryPolicy(maxAttempts: 100, initialDelay: .seconds(60), maxDelay: .seconds(60), maxDuration: .seconds(600))
        let item = FetchItem.file(URL(string: "http://127.0.0.1:\(port)/x")!, size: 1, sha256: nil)
        let (error, waited) = try await Self.cancelledAfter(.milliseconds(200)) { [options] cancellation throws(AssetPackError) in
            _ = try RemoteFetcher(options: options).fetchSynchronously(item, into: MemorySink(), cancellation: cancellation)
        }
        #expect(error.code == .cancelled)
        #expect(waited < .seconds(5), "the 60 s wait before the next try was cut short")
    }

    @Test func cancellingARemoteInstallEndsTheFetchesItHasInFlight() async throws {
        // Requests 0–2 are the identity, the manifest and its signature; every later answer stalls for longer
        // than the test may take, so only the cancellation can end the install.
        let started = Flag()
        let fixture = try await RemoteInstallFixture(faults: { $0 >= 3 ? .stall(afterBytes: 10, seconds: 600) : .none },
                                                     onRequest: { if $0 >= 3 { _ = started.set() } })
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        let install = Task { try await fixture.install(options: testOptions(timeout: .seconds(600))) }
        while !started.isSet { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))
        let cancelled = ContinuousClock.now
        install.cancel()
        let error = await expectFailure { try await install.value }
        #expect(error?.code == .cancelled)
        #expect(ContinuousClock.now - cancelled < .seconds(60), "the stalled fetches noticed the cancellation")
        #expect(!FileManager.default.fileExists(atPath: fixture.destination))
    }

    /// Runs `body` on a thread of its own, sets its cancellation after `delay`, and returns the error it
    /// ended in and how long after the cancellation it ended (measured on that thread, so a busy
    /// cooperative pool does not count).
    static func cancelledAfter(_ delay: Duration, _ body: @escaping @Sendable (ExpansionCancellation) throws(AssetPackError) -> Void)
        async throws -> (AssetPackError, Duration) {
        try await OwnThread.run { _ throws(AssetPackError) -> (AssetPackError, Duration) in
            let cancellation = ExpansionCancellation()
            let cancelled = Locked<ContinuousClock.Instant?>(nil)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
                cancelled.value = .now
                cancellation.cancel()
            }
            do throws(AssetPackError) {
                try body(cancellation)
            } catch {
                return (error, ContinuousClock.now - (cancelled.value ?? .now))
            }
            throw AssetPackError(.invalidArgument, "ended without an error")
        }
    }

    @Test func aConnectionDroppedInTheMiddleOfARangeResumesFromTheFirstMissingByte() async throws {
        let range: Range<UInt64> = 50_000..<250_000
        let server = try ScriptedHTTPServer { [data] head, index in
            let asked = head.components(separatedBy: "\r\n").first { $0.lowercased().hasPrefix("range: bytes=") }
            let bounds = (asked?.dropFirst(13).split(separator: "-").compactMap { Int($0) }) ?? []
            guard bounds.count == 2 else { return .init("HTTP/1.1 400 Bad\r\nContent-Length: 0\r\n\r\n") }
            let part = Array(data[bounds[0]...bounds[1]])
            let head = "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(bounds[0])-\(bounds[1])/\(data.count)\r\n"
                + "ETag: \"v1\"\r\nContent-Length: \(part.count)\r\n\r\n"
            // The first answer stops after 70,000 bytes of its body and the connection is closed.
            return .init(Array(head.utf8) + (index == 0 ? Array(part.prefix(70_000)) : part), close: index == 0)
        }
        let request = DeliveryRequest(file: "f.bin", range: range, length: UInt64(range.count))
        let bytes = try await OwnThread.run { _ throws(AssetPackError) in try Self.deliver(request, from: server.url("")) }
        #expect(bytes == Array(data[Int(range.lowerBound)..<Int(range.upperBound)]))
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.contains("\r\nRange: bytes=120000-249999\r\nIf-Range: \"v1\"\r\n") == true)
    }
}

private typealias Reply = ScriptedHTTPServer.Reply

/// A ``DeliverySink`` that keeps the bytes in memory.
private final class CollectingSink: DeliverySink {
    private(set) var bytes: [UInt8] = []
    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) { self.bytes += bytes }
    func restart() throws(AssetPackError) { bytes = [] }
    func finish() throws(AssetPackError) {}
}

/// A value behind a lock.
private final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// Holds threads of the cooperative pool with a blocking wait until ``release()``: what a pool busy with
/// blocking work looks like to a fetch.
private final class PoolBlocker: @unchecked Sendable {
    private let condition = NSCondition()
    private let threads: Int
    private var blocking = 0
    private var released = false

    init(threads: Int) { self.threads = threads }

    /// Blocks the calling thread until ``release()`` (true) or `seconds` passed (false).
    func block(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        blocking += 1
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while !released, condition.wait(until: deadline) {}
        return released
    }

    /// Waits until every blocker holds its thread; false after `seconds`.
    func waitUntilBlocked(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while blocking < threads, condition.wait(until: deadline) {}
        return blocking >= threads
    }

    /// Lets every blocker go.
    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }
}
