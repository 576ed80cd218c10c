@testable import AssetPackRemote
import Foundation
import Testing

/// The socket client's parsers from literal bytes: status line, fields, framing, keep-alive, chunk sizes,
/// the request head, proxy settings.
struct ResponseHeadTests {
    func head(_ text: String) -> Result<ResponseHead, HeadError> {
        ResponseHead.parse(text.split(separator: "\n").map { ArraySlice(Array($0.utf8)) })
    }

    @Test func aHeadIsParsedWithLowercasedAndJoinedFields() throws {
        let parsed = try head("HTTP/1.1 206 Partial Content\nContent-Range: bytes 0-9/100\nX-A: 1\nx-a:  2 \nETag: \"e\"").get()
        #expect(parsed.status == 206)
        #expect(parsed.minorVersion == 1)
        #expect(parsed.headers == ["content-range": "bytes 0-9/100", "x-a": "1, 2", "etag": "\"e\""])
    }

    @Test func aStatusLineWithoutReasonIsFine() throws {
        #expect(try head("HTTP/1.0 404").get().status == 404)
    }

    @Test(arguments: ["HTTP/1.1 20x OK", "HTTP/1.1200 OK", "http/1.1 200 OK", "HTTP/1.1 099 Low", ""])
    func badStatusLines(line: String) {
        #expect(throws: HeadError.self) { try head(line + "\nA: b").get() }
    }

    @Test(arguments: ["No colon", " Folded: value", "Bad Name: x", ": empty"])
    func badFieldLines(line: String) {
        #expect(throws: HeadError.self) { try head("HTTP/1.1 200 OK\n" + line).get() }
    }

    @Test func framingFollowsRFC9112() throws {
        #expect(try head("HTTP/1.1 200 OK\nContent-Length: 5").get().framing.get() == .length(5))
        #expect(try head("HTTP/1.1 200 OK\nContent-Length: 0").get().framing.get() == .empty)
        #expect(try head("HTTP/1.1 200 OK\nContent-Length: 7, 7").get().framing.get() == .length(7))
        #expect(try head("HTTP/1.1 200 OK\nTransfer-Encoding: gzip, chunked\nContent-Length: 5").get().framing.get() == .chunked)
        #expect(try head("HTTP/1.1 304 Not Modified\nContent-Length: 5").get().framing.get() == .empty)
        #expect(try head("HTTP/1.1 204 No Content").get().framing.get() == .empty)
        #expect(try head("HTTP/1.0 200 OK").get().framing.get() == .untilClose)
        #expect(throws: HeadError.self) { try head("HTTP/1.1 200 OK\nTransfer-Encoding: gzip").get().framing.get() }
        #expect(throws: HeadError.self) { try head("HTTP/1.1 200 OK\nContent-Length: -1").get().framing.get() }
        #expect(throws: HeadError.self) { try head("HTTP/1.1 200 OK\nContent-Length: 99999999999999999999").get().framing.get() }
    }

    @Test func keepAliveFollowsTheVersionAndConnectionField() throws {
        #expect(try head("HTTP/1.1 200 OK").get().keepsAlive)
        #expect(try !head("HTTP/1.1 200 OK\nConnection: Keep-Alive, close").get().keepsAlive)
        #expect(try !head("HTTP/1.0 200 OK").get().keepsAlive)
        #expect(try head("HTTP/1.0 200 OK\nConnection: keep-alive").get().keepsAlive)
    }

    @Test func chunkSizeLines() {
        func size(_ text: String) -> UInt64? { ChunkSizeLine.parse(ArraySlice(Array(text.utf8))) }
        #expect(size("1a") == 26)
        #expect(size("FF;ext=1") == 255)
        #expect(size("10 ; a=\"b\"") == 16)
        #expect(size("0") == 0)
        #expect(size("") == nil)
        #expect(size(";x") == nil)
        #expect(size("-1") == nil)
        #expect(size("0x10") == nil)
        #expect(size("1000000000000000") == nil)  // 16 hex digits: more than the parser accepts
    }

    @Test func theRequestHeadIsWrittenForTheURL() throws {
        let request = HTTPRequest(url: URL(string: "http://[::1]:8080/b/c.bin")!, range: 0..<1)
        let head = String(decoding: try #require(request.wireHead), as: UTF8.self)
        #expect(head == "GET /b/c.bin HTTP/1.1\r\nHost: [::1]:8080\r\nUser-Agent: assetpack\r\nAccept-Encoding: identity\r\nRange: bytes=0-0\r\n\r\n")
        #expect(request.endpoint?.host == "::1")
        #expect(request.endpoint?.port == 8080)
        #expect(HTTPRequest(url: URL(string: "http://example.com")!).wireHead.map { String(decoding: $0, as: UTF8.self) }?
            .hasPrefix("GET / HTTP/1.1\r\nHost: example.com\r\n") == true)
    }

    @Test func theRouterSendsProxiedAndSecureRequestsToURLSession() {
        let url = URL(string: "http://127.0.0.1:1/x")!
        #expect(RoutingTransport(environment: [:]).usesSockets(HTTPRequest(url: url)))
        #expect(!RoutingTransport(environment: [:]).usesSockets(HTTPRequest(url: URL(string: "https://127.0.0.1/x")!)))
        #expect(!RoutingTransport(environment: ["http_proxy": "http://proxy:3128"]).usesSockets(HTTPRequest(url: url)))
        #expect(!RoutingTransport(environment: ["ALL_PROXY": "socks5://proxy"]).usesSockets(HTTPRequest(url: url)))
        #expect(RoutingTransport(environment: ["HTTP_PROXY": "http://p", "no_proxy": "localhost, 127.0.0.1"]).usesSockets(HTTPRequest(url: url)))
        #expect(RoutingTransport(environment: ["http_proxy": "http://p", "NO_PROXY": "*"]).usesSockets(HTTPRequest(url: url)))
        #expect(RoutingTransport(environment: ["http_proxy": ""]).usesSockets(HTTPRequest(url: url)))
        let settings = ProxySettings(environment: ["http_proxy": "http://p", "no_proxy": ".example.com"])
        #expect(!settings.isProxied("cdn.example.com"))
        #expect(!settings.isProxied("example.com"))
        #expect(settings.isProxied("example.org"))
    }
}
