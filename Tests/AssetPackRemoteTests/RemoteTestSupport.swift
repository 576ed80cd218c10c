import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Options for loopback tests: plain HTTP allowed, short delays, so a fault costs milliseconds. The bound in
/// time is generous: when the whole suite runs, synchronous tests can hold the threads async tests run on
/// for minutes, and a test must then still see the bound in count it asserts.
func testOptions(timeout: Duration = .seconds(5), attempts: Int = 4, concurrency: Int = 4) -> FetchOptions {
    var options = FetchOptions()
    options.allowsPlainHTTP = true
    options.timeout = timeout
    options.maxConcurrentRequests = concurrency
    options.retry = RetryPolicy(maxAttempts: attempts, initialDelay: .milliseconds(10), maxDelay: .milliseconds(50),
                                maxDuration: .seconds(600))
    return options
}

/// `count` reproducible random bytes.
func testBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var random = SeededRandom(seed: seed)
    return random.bytes(count)
}

/// An nginx serving `files`, or a skip (a failure under ASSETPACK_REQUIRE_TOOLS=1) when nginx is missing.
func startNginx(_ files: [String: [UInt8]] = [:], serverConfig: String = "",
                sourceLocation: SourceLocation = #_sourceLocation) async throws -> NginxServer {
    try ExternalTool.nginx.require(sourceLocation: sourceLocation)
    let server = try await NginxServer(serverConfig: serverConfig)
    for (path, bytes) in files { try server.write(path, bytes) }
    return server
}

/// Where a test's client fetches a site's files from: nginx itself, a caching proxy in front of it, or an
/// S3-compatible store the files are uploaded to.
enum Route: Sendable, CustomTestStringConvertible {
    case direct
    case cache(CachingProxy.Kind)
    case s3

    /// Every route through a real cache or store.
    static let throughCachesAndStores: [Route] = [.cache(.nginxSlice), .cache(.varnish), .cache(.squid), .s3]

    var testDescription: String {
        switch self {
        case .direct: "nginx"
        case .cache(let kind): kind.rawValue
        case .s3: "SeaweedFS (S3)"
        }
    }
}

/// nginx serving some files, and optionally the fault proxy, a caching proxy or an S3 store in front of it:
/// what a test downloads from. Fetch through ``fetch(_:options:progress:)`` (or keep the site in use until the
/// end of the test): a local that is not used any more may be released, and with it the servers.
final class Site: @unchecked Sendable {
    /// The origin: where files are published (and, without a cache or a store, what the client talks to).
    let server: NginxServer
    private(set) var proxy: FaultProxy?
    /// The caching proxy the client talks to, on a ``Route/cache(_:)`` route.
    let cache: CachingProxy?
    /// The store the client fetches from, on the ``Route/s3`` route (files published to ``server`` are uploaded).
    let store: SeaweedStore?

    /// nginx serving `files` (reached on `route`), with a proxy applying `faults` in front when given.
    init(_ files: [String: [UInt8]], serverConfig: String = "", route: Route = .direct, onRequest: (@Sendable (Int) -> Void)? = nil,
         faults: (@Sendable (Int) -> FaultProxy.Fault)? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var cache: CachingProxy?, store: SeaweedStore?
        switch route {
        case .cache(let kind):
            cache = try await CachingProxy(kind)
            server = cache!.origin
        case .s3:
            store = try await SeaweedStore()
            server = try await startNginx(serverConfig: serverConfig, sourceLocation: sourceLocation)
        case .direct:
            server = try await startNginx(serverConfig: serverConfig, sourceLocation: sourceLocation)
        }
        for (path, bytes) in files { try server.write(path, bytes) }
        (self.cache, self.store) = (cache, store)
        if let faults { proxy = try FaultProxy(upstream: client.port, onRequest: onRequest, faults: faults) }
    }

    /// The server the client talks to (the fault proxy aside), whose access log has the bytes it received.
    var client: NginxServer { cache?.front ?? store?.front ?? server }

    /// The URL of `path` through the proxy when there is one.
    func url(_ path: String) -> URL {
        let path = store.map { "\($0.bucket)/\(path)" } ?? path
        return proxy?.url(path) ?? client.url(path)
    }

    /// Fetches `item` into memory, keeping the site alive meanwhile.
    func fetch(_ item: FetchItem, options: FetchOptions = testOptions(), transport: (any HTTPTransport)? = nil,
               progress: FetchProgress? = nil) async throws -> (bytes: [UInt8], result: FetchResult) {
        try await fetchToMemory(RemoteFetcher(options: options, transport: transport), item, progress: progress)
    }

    /// The error fetching `item` ends in.
    func failure(_ item: FetchItem, options: FetchOptions = testOptions(), transport: (any HTTPTransport)? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) async -> AssetPackError? {
        await expectFailure({ try await fetchToMemory(RemoteFetcher(options: options, transport: transport), item) }, sourceLocation: sourceLocation)
    }
}

/// The two clients a test of plain HTTP can run against: the socket client (the default for `http://`) and
/// URLSession (for `https://` and proxies).
enum TransportChoice: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sockets
    case urlSession

    /// A new transport of this kind.
    func make(connections: Int = 8) -> any HTTPTransport {
        switch self {
        case .sockets: SocketHTTPTransport(maximumConnectionsPerHost: connections)
        case .urlSession: URLSessionTransport(maximumConnectionsPerHost: connections)
        }
    }

    var testDescription: String { rawValue }
}

/// The whole-file item for `bytes` at `url`.
func fileItem(_ url: URL, _ bytes: [UInt8]) -> FetchItem {
    .file(url, size: UInt64(bytes.count), sha256: ContentHash.of(bytes))
}

/// Fetches `item` into memory.
func fetchToMemory(_ fetcher: RemoteFetcher, _ item: FetchItem, progress: FetchProgress? = nil) async throws(AssetPackError) -> (bytes: [UInt8], result: FetchResult) {
    let sink = MemorySink()
    let result = try await fetcher.fetch(item, into: sink, progress: progress)
    return (sink.bytes, result)
}

extension HTTPTransport {
    /// ``HTTPTransport/get(_:cancellation:)`` from a test's task, on a thread of its own as the fetcher calls it;
    /// cancelling the task cancels the request.
    func asyncGet(_ request: HTTPRequest) async throws(AssetPackError) -> HTTPResponse {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in try self.get(request, cancellation: cancellation) }
    }
}

extension HTTPBody {
    /// ``HTTPBody/next()`` from a test's task, on a thread of its own.
    func asyncNext() async throws(AssetPackError) -> [UInt8]? {
        try await AssetInstaller.onOwnThread { _ throws(AssetPackError) in try self.next() }
    }
}

/// Fetches `items` into memory, as many at once as the fetcher's concurrency, started in order (so a test's
/// faults, counted by request, reach the items in a known order); their bytes in order.
func fetchEach(_ fetcher: RemoteFetcher, _ items: [FetchItem], progress: FetchProgress? = nil) async throws -> [[UInt8]] {
    var fetched = [[UInt8]](repeating: [], count: items.count)
    try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
        for (index, item) in items.enumerated() {
            if index >= fetcher.options.maxConcurrentRequests, let (done, bytes) = try await group.next() { fetched[done] = bytes }
            group.addTask { (index, try await fetchToMemory(fetcher, item, progress: progress).bytes) }
        }
        for try await (done, bytes) in group { fetched[done] = bytes }
    }
    return fetched
}

/// The error `body` throws, or a recorded issue when it succeeds.
func expectFailure<T>(_ body: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async -> AssetPackError? {
    do {
        _ = try await body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch let error as AssetPackError {
        return error
    } catch {
        Issue.record("expected an AssetPackError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A transport that counts the responses in flight (from the request until its body ends, fails or is
/// cancelled) around a real one, and keeps the errors it passed on: how a test sees the fetcher's bound on
/// concurrent requests exactly, and why a request failed.
final class CountingTransport: HTTPTransport, @unchecked Sendable {
    private let inner: any HTTPTransport
    private let lock = NSLock()
    private var active = 0
    private var highest = 0
    private var started = 0
    private var errors: [AssetPackError] = []
    /// The first this many requests wait until as many are in flight (for at most 10 s), so that a test
    /// sees the concurrency the fetcher allows even on a busy machine, where the first request could
    /// otherwise end before the third starts.
    private let gathering: Int

    /// Counts the requests of `inner` (URLSession by default); the first `gathering` wait for each other.
    init(_ inner: any HTTPTransport = URLSessionTransport(), gathering: Int = 0) {
        self.inner = inner
        self.gathering = gathering
    }

    /// The most responses in flight at once so far.
    var peak: Int { lock.withLock { highest } }

    /// The errors requests and bodies threw so far.
    var failures: [AssetPackError] { lock.withLock { errors } }

    fileprivate func failed(_ error: AssetPackError) { lock.withLock { errors.append(error) } }

    func get(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        let number = lock.withLock { () -> Int in
            active += 1
            started += 1
            highest = max(highest, active)
            return started
        }
        if number <= gathering {
            let deadline = Date().addingTimeInterval(10)
            while lock.withLock({ active < gathering }), Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
        }
        do {
            var response = try inner.get(request, cancellation: cancellation)
            response.body = CountedBody(response.body, transport: self) { [self] in lock.withLock { active -= 1 } }
            return response
        } catch {
            lock.withLock {
                active -= 1
                errors.append(error)
            }
            throw error
        }
    }
}

/// A body that calls `ended` once, when it ends, fails or is cancelled.
private final class CountedBody: HTTPBody, @unchecked Sendable {
    private let body: any HTTPBody
    private let transport: CountingTransport
    private var ended: (() -> Void)?
    private let lock = NSLock()

    init(_ body: any HTTPBody, transport: CountingTransport, ended: @escaping () -> Void) {
        self.body = body
        self.transport = transport
        self.ended = ended
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        do {
            guard let chunk = try body.next() else {
                end()
                return nil
            }
            return chunk
        } catch {
            transport.failed(error)
            end()
            throw error
        }
    }

    func cancel() {
        body.cancel()
        end()
    }

    private func end() {
        let call: (() -> Void)? = lock.withLock {
            defer { ended = nil }
            return ended
        }
        call?()
    }
}
