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

    @Test func aDeliveryMakesItsRequestAndReadsItsBodyOnTheThreadThatAsked() async throws {
        // A slow server: the body comes in pieces a millisecond apart, so reads wait for it.
        let server = try ScriptedHTTPServer { [data] _, _ in .init(Reply.ok(data).bytes, pieceSize: 16 << 10) }
        let transport = ThreadRecordingTransport(SocketHTTPTransport())
        let request = DeliveryRequest(file: "f.bin", range: nil, length: UInt64(data.count))
        let (bytes, asker) = try await AssetInstaller.onOwnThread { _ throws(AssetPackError) in
            let delivery = RemoteBundleDelivery(bundle: RemoteBundle(server.url("")),
                                                fetcher: RemoteFetcher(options: testOptions(), transport: transport),
                                                progress: nil, cancellation: ExpansionCancellation())
            let sink = CollectingSink()
            try delivery.deliver(request, into: sink)
            return (sink.bytes, ObjectIdentifier(Thread.current))
        }
        #expect(bytes == data)
        let threads = transport.threads
        #expect(threads.count > 2, "the request and several reads of its body")
        #expect(threads.allSatisfy { $0 == asker }, "no task, no other thread: a slow server holds only the asking thread")
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
        try await AssetInstaller.onOwnThread { _ throws(AssetPackError) -> (AssetPackError, Duration) in
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
        let bytes = try await AssetInstaller.onOwnThread { _ throws(AssetPackError) in try Self.deliver(request, from: server.url("")) }
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

/// A transport that notes the thread of every request and body read of the one it wraps.
private final class ThreadRecordingTransport: HTTPTransport, @unchecked Sendable {
    private let inner: any HTTPTransport
    private let lock = NSLock()
    private var recorded: [ObjectIdentifier] = []

    init(_ inner: any HTTPTransport) { self.inner = inner }

    /// The threads of the calls so far, in order.
    var threads: [ObjectIdentifier] { lock.withLock { recorded } }

    func note() { lock.withLock { recorded.append(ObjectIdentifier(Thread.current)) } }

    func get(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        note()
        var response = try inner.get(request, cancellation: cancellation)
        response.body = RecordedBody(response.body, transport: self)
        return response
    }
}

/// A body whose reads ``ThreadRecordingTransport`` notes.
private final class RecordedBody: HTTPBody, @unchecked Sendable {
    private let body: any HTTPBody
    private let transport: ThreadRecordingTransport

    init(_ body: any HTTPBody, transport: ThreadRecordingTransport) {
        self.body = body
        self.transport = transport
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        transport.note()
        return try body.next()
    }

    func cancel() { body.cancel() }
}
