import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// ``SocketHTTPTransport`` against a scripted server: framing (lengths, chunks with extensions and trailers,
/// close-delimited bodies), keep-alive, bodies cut short, malformed and oversized heads, redirects, timeouts,
/// cancellation. No external tool is needed.
struct SocketTransportTests {
    let transport = SocketHTTPTransport(maximumConnectionsPerHost: 4)

    /// A request for `url`. The default timeout is long: when the whole suite runs, synchronous tests can hold
    /// the threads async tests run on for minutes, and only the timeout tests should time out.
    func request(_ url: URL, timeout: Duration = .seconds(600), plain: Bool = true) -> HTTPRequest {
        HTTPRequest(url: url, timeout: timeout, allowsPlainHTTP: plain)
    }

    /// The whole body of the response to `url`.
    func body(_ url: URL) async throws -> (status: Int, bytes: [UInt8]) {
        let response = try await transport.asyncGet(request(url))
        var bytes: [UInt8] = []
        while let chunk = try await response.body.asyncNext() { bytes += chunk }
        return (response.status, bytes)
    }

    // MARK: Framing and keep-alive

    @Test func contentLengthBodiesReuseOneConnection() async throws {
        let data = testBytes(300_000, seed: 11)
        let server = try ScriptedHTTPServer { _, _ in .ok(data) }
        for _ in 0..<3 { #expect(try await body(server.url("f")).bytes == data) }
        #expect(server.connections == 1)
        #expect(transport.connectionsOpened == 1)
        #expect(server.requests.count == 3)
    }

    @Test func theRequestHeadCarriesHostRangeIfRangeAndIdentity() async throws {
        let server = try ScriptedHTTPServer { _, _ in Reply.ok([1, 2]) }
        let range = HTTPRequest(url: server.url("a%20b?x=1"), range: 5..<10, ifRange: "\"t\"", allowsPlainHTTP: true)
        let response = try await transport.asyncGet(range)
        response.body.cancel()
        let head = try #require(server.requests.first)
        #expect(head.hasPrefix("GET /a%20b?x=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(head.contains("\r\nAccept-Encoding: identity\r\n"))
        #expect(head.contains("\r\nRange: bytes=5-9\r\nIf-Range: \"t\"\r\n"))
    }

    @Test(arguments: [0, 3]) func chunkedBodiesWithExtensionsAndTrailers(pieceSize: Int) async throws {
        let wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6 ; q=\"x;y\"\r\n world\r\nA\r\n0123456789\r\n0\r\nX-Checksum: 1\r\nX-Other: 2\r\n\r\n"
        let server = try ScriptedHTTPServer { _, _ in .init(wire, pieceSize: pieceSize) }
        for _ in 0..<2 {
            let (status, bytes) = try await body(server.url("c"))
            #expect(status == 200)
            #expect(String(decoding: bytes, as: UTF8.self) == "hello world0123456789")
        }
        #expect(server.connections == 1)
    }

    @Test func aCloseDelimitedBodyEndsWithTheConnection() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.0 200 OK\r\n\r\nall of it", close: true) }
        #expect(String(decoding: try await body(server.url("x")).bytes, as: UTF8.self) == "all of it")
        #expect(String(decoding: try await body(server.url("x")).bytes, as: UTF8.self) == "all of it")
        #expect(server.connections == 2)
    }

    @Test func connectionCloseIsHonoured() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", close: true) }
        for _ in 0..<2 { #expect(try await body(server.url("x")).bytes == Array("ok".utf8)) }
        #expect(server.connections == 2)
    }

    @Test func anIdleConnectionTheServerClosedIsReplaced() async throws {
        // Keeps the connection "alive" in its head, but closes it after each answer.
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", close: true) }
        for _ in 0..<3 { #expect(try await body(server.url("x")).bytes == Array("ok".utf8)) }
        #expect(server.connections == 3)
    }

    // MARK: Bodies cut short

    @Test func aBodyCutShortIsARetryableErrorNamingTheURL() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "x", count: 400), close: true) }
        let error = await expectFailure { try await body(server.url("short")) }
        #expect(error?.code == .io)
        #expect(error?.path == server.url("short").absoluteString)
        #expect(error?.message == "the connection was closed by the server after 400 of the 1000 bytes of the body")
    }

    @Test func aChunkedBodyCutShortIsAnError() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly eight", close: true) }
        let error = await expectFailure { try await body(server.url("c")) }
        #expect(error?.code == .io)
        #expect(error?.message == "the connection was closed by the server inside a chunk, after 10 bytes of the body")
    }

    @Test func aChunkLongerThanItsSizeIsAnError() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n") }
        let error = await expectFailure { try await body(server.url("c")) }
        #expect(error?.code == .io)
        #expect(error?.message == "not a valid HTTP/1.1 response: a chunk longer than its size line says")
    }

    // MARK: Malformed heads

    @Test(arguments: ["HTTP/2 200 OK\r\n\r\n", "ICY 200 OK\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n"])
    func aBadStatusLineIsAClearError(wire: String) async throws {
        let server = try ScriptedHTTPServer { _, _ in .init(wire, close: true) }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("s"))) }
        #expect(error?.code == .io)
        #expect(error?.message.hasPrefix("not a valid HTTP/1.1 response: bad status line") == true)
    }

    @Test func aHeadTooLargeIsAClearError() async throws {
        let huge = "HTTP/1.1 200 OK\r\n" + (0..<2000).map { "X-Filler-\($0): \(String(repeating: "y", count: 40))\r\n" }.joined() + "\r\n"
        let server = try ScriptedHTTPServer { _, _ in .init(huge, close: true) }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("h"))) }
        #expect(error?.code == .io)
        #expect(error?.message == "not a valid HTTP/1.1 response: a response head longer than 65536 bytes")
    }

    @Test func aBadContentLengthIsAClearError() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 12, 13\r\n\r\n", close: true) }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("h"))) }
        #expect(error?.message == "not a valid HTTP/1.1 response: bad Content-Length \"12, 13\"")
    }

    // MARK: Redirects

    @Test func aRedirectIsFollowed() async throws {
        let server = try ScriptedHTTPServer { head, _ in
            head.hasPrefix("GET /old ") ? .init("HTTP/1.1 301 Moved\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n") : .ok(Array("new".utf8))
        }
        let (status, bytes) = try await body(server.url("old"))
        #expect(status == 200)
        #expect(bytes == Array("new".utf8))
        #expect(server.requests.map { $0.prefix(9) } == ["GET /old ", "GET /new "])
    }

    @Test func aRedirectToPlainHTTPIsRefusedUnlessAllowed() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n") }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("old"), plain: false)) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == "redirected to \(server.url("new").absoluteString), which is plain HTTP, not allowed")
    }

    @Test func aRedirectLoopEnds() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 307 Again\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n") }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("loop"))) }
        #expect(error?.message == "more than 5 redirects")
        #expect(server.requests.count == 6)
    }

    // MARK: Timeouts and cancellation

    @Test func noResponseHeadInTimeIsATimeout() async throws {
        // The server stalls far longer than the test may take (it is stopped at the end): only the timeout can
        // end the wait.
        let server = try ScriptedHTTPServer { _, _ in .init("", stall: 600) }
        let error = await expectFailure { try await transport.asyncGet(request(server.url("x"), timeout: .milliseconds(200))) }
        #expect(error?.code == .io)
        #expect(error?.message == "timed out: no response within 200 ms")
    }

    @Test func aStalledBodyIsATimeout() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", stall: 600) }
        let response = try await transport.asyncGet(request(server.url("x"), timeout: .milliseconds(200)))
        #expect(try await response.body.asyncNext() == Array("abc".utf8))
        let error = await expectFailure { try await response.body.asyncNext() }
        #expect(error?.message == "timed out: no further bytes of the body within 200 ms")
    }

    @Test func aCancelledBodyStopsAStalledRead() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", stall: 600) }
        let response = try await transport.asyncGet(request(server.url("x"), timeout: .seconds(600)))
        let reader = Task { try await response.body.asyncNext() }
        try await Task.sleep(for: .milliseconds(100))
        response.body.cancel()
        #expect(try await reader.value == nil)
        #expect(try await response.body.asyncNext() == nil)
    }

    @Test func aCancelledTaskEndsCancelled() async throws {
        let server = try ScriptedHTTPServer { _, _ in .init("", stall: 600) }
        let task = Task { [transport] in try await transport.asyncGet(HTTPRequest(url: server.url("x"), timeout: .seconds(600), allowsPlainHTTP: true)) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let error = await expectFailure { try await task.value }
        #expect(error?.code == .cancelled)
    }

    @Test func aRefusedConnectionIsARetryableError() async throws {
        let (socket, port) = try LoopbackSocket.bound()
        defer { close(socket) }
        let error = await expectFailure { try await transport.asyncGet(request(URL(string: "http://127.0.0.1:\(port)/x")!)) }
        #expect(error?.code == .io)
        #expect(error?.message == "connection refused (connect to 127.0.0.1:\(port))")
    }
}

private typealias Reply = ScriptedHTTPServer.Reply
