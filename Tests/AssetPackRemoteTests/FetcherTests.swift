import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// The fetcher against a real nginx on loopback, no faults: whole files, ranges, concurrency, progress, and
/// the bytes that crossed the network, read from nginx's access log.
@Suite(ExternalTool.nginx.needed)
struct FetcherTests {
    @Test func fetchesAWholeFileInOneRequest() async throws {
        let data = testBytes(300_000)
        let server = try await startNginx(["a/big.bin": data])
        let fetcher = RemoteFetcher(options: testOptions())
        let progress = FetchProgress()
        let (bytes, result) = try await fetchToMemory(fetcher, fileItem(server.url("a/big.bin"), data), progress: progress)
        #expect(bytes == data)
        #expect(result.requests == 1)
        #expect(result.etag != nil)
        let log = await server.requests(atLeast: 1)
        #expect(log.count == 1)
        #expect(log.first?.range == nil)
        #expect(log.first?.bodyBytes == UInt64(data.count))
        #expect(progress.snapshot == .init(received: 300_000, completed: 300_000, verified: 300_000, items: 1))
    }

    @Test func fetchesARangeAndOnlyItsBytesCrossTheNetwork() async throws {
        let data = testBytes(1_000_000)
        let server = try await startNginx(["big.bin": data])
        let fetcher = RemoteFetcher(options: testOptions())
        let range: Range<UInt64> = 400_000..<450_000
        let item = FetchItem.bytes(range, of: server.url("big.bin"), sha256: ContentHash.of(data[400_000..<450_000]))
        let (bytes, _) = try await fetchToMemory(fetcher, item)
        #expect(bytes == Array(data[400_000..<450_000]))
        let log = await server.requests(atLeast: 1)
        #expect(log.map(\.status) == [206])
        #expect(log.first?.range == "bytes=400000-449999")
        #expect(log.first?.bodyBytes == 50_000)
    }

    @Test func anEmptyFileNeedsNoRequest() async throws {
        let site = try await Site(["empty": []])
        let (bytes, result) = try await site.fetch(fileItem(site.url("empty"), []))
        #expect(bytes.isEmpty)
        #expect(result.requests == 0)
    }

    @Test func manyFilesAtOnceStayWithinTheBoundAndProgressAddsUp() async throws {
        let files = (0..<24).map { testBytes(20_000 + $0 * 1000, seed: UInt64($0)) }
        let site = try await Site(Dictionary(uniqueKeysWithValues: files.enumerated().map { ("f\($0.offset)", $0.element) }))
        let transport = CountingTransport(gathering: 3)
        let fetcher = RemoteFetcher(options: testOptions(concurrency: 3), transport: transport)
        let items = files.enumerated().map { fileItem(site.url("f\($0.offset)"), $0.element) }
        let progress = FetchProgress()
        #expect(try await fetchEach(fetcher, items, progress: progress) == files)
        let total = UInt64(files.map(\.count).reduce(0, +))
        #expect(progress.snapshot == .init(received: total, completed: total, verified: total, items: 24))
        #expect(transport.peak == 3)
        let log = await site.server.requests(atLeast: 24)
        #expect(log.reduce(0) { $0 + $1.bodyBytes } == total)
    }

    @Test func independentFetchesShareTheFetchersBound() async throws {
        let files = (0..<12).map { testBytes(50_000, seed: 300 + UInt64($0)) }
        let site = try await Site(Dictionary(uniqueKeysWithValues: files.enumerated().map { ("f\($0.offset)", $0.element) }))
        let transport = CountingTransport()
        let fetcher = RemoteFetcher(options: testOptions(concurrency: 2), transport: transport)
        let items = files.enumerated().map { fileItem(site.url("f\($0.offset)"), $0.element) }
        let fetched = try await withThrowingTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, item) in items.enumerated() {
                group.addTask { (index, try await fetchToMemory(fetcher, item).bytes) }
            }
            return try await group.reduce(into: [Int: [UInt8]]()) { $0[$1.0] = $1.1 }
        }
        #expect((0..<12).allSatisfy { fetched[$0] == files[$0] })
        #expect(transport.peak == 2)
    }

    @Test func notFoundEndsAtOnce() async throws {
        let server = try await startNginx()
        let error = await expectFailure { try await fetchToMemory(RemoteFetcher(options: testOptions()), fileItem(server.url("missing.bin"), [1, 2, 3])) }
        #expect(error?.code == .notFound)
        #expect(error?.path == server.url("missing.bin").absoluteString)
        #expect(error?.message.contains("404") == true)
        #expect(await server.requests(atLeast: 1).count == 1)
    }

    @Test func aRefusedConnectionIsRetriedThenReported() async throws {
        // A port bound but not listening: nothing else can take it while the test runs, and connecting is refused.
        let (socket, port) = try LoopbackSocket.bound()
        defer { close(socket) }
        let url = URL(string: "http://127.0.0.1:\(port)/x")!
        let error = await expectFailure { try await fetchToMemory(RemoteFetcher(options: testOptions(attempts: 3)), fileItem(url, [1])) }
        #expect(error?.code == .network)
        #expect(error?.path == url.absoluteString)
        #expect(error?.message.contains("gave up after 3 requests") == true, "\(error?.message ?? "no error")")
    }

    @Test func plainHTTPNeedsTheCallersConsent() async throws {
        var options = testOptions()
        options.allowsPlainHTTP = false
        let error = await expectFailure { try await fetchToMemory(RemoteFetcher(options: options), fileItem(URL(string: "http://127.0.0.1:9/x")!, [1])) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("plain http://") == true)
        let ftp = await expectFailure { try await RemoteFetcher(options: testOptions()).fetchBytes(URL(string: "ftp://127.0.0.1/x")!, limit: 10) }
        #expect(ftp?.code == .invalidArgument)
    }

    @Test func fetchBytesIsBounded() async throws {
        let server = try await startNginx(["small": testBytes(100), "large": testBytes(5000)])
        let fetcher = RemoteFetcher(options: testOptions())
        #expect(try await fetcher.fetchBytes(server.url("small"), limit: 100) == testBytes(100))
        let error = await expectFailure { try await fetcher.fetchBytes(server.url("large"), limit: 4096) }
        #expect(error?.code == .limitExceeded)
    }

    @Test func aSlowSinkStaysWithinTheBufferAndStillGetsEveryByte() async throws {
        let data = testBytes(2_000_000)
        let server = try await startNginx(["big.bin": data])
        let transport = URLSessionTransport(maximumConnectionsPerHost: 2, bufferLimit: 64 << 10)
        let fetcher = RemoteFetcher(options: testOptions(attempts: 8), transport: transport)
        let sink = SlowSink()
        let result = try await fetcher.fetch(fileItem(server.url("big.bin"), data), into: sink)
        #expect(sink.bytes == data)
        // Each time the reader fell 64 KiB behind, the transfer stopped and resumed with a range.
        #expect(result.requests >= 2)
        #expect(await server.requests(atLeast: result.requests).dropFirst().allSatisfy { $0.range != nil })
    }
}

/// A sink that sleeps on every write, slower than loopback.
final class SlowSink: DeliverySink {
    private(set) var bytes: [UInt8] = []
    func write(_ chunk: UnsafeRawBufferPointer) throws(AssetPackError) {
        bytes.append(contentsOf: chunk)
        usleep(2_000)
    }
    func restart() throws(AssetPackError) { bytes.removeAll() }
    func finish() throws(AssetPackError) {}
}

