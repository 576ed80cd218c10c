import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing

/// The small pure parts: Content-Range, request headers, hashes, retry delays, URL policy, block ranges.
struct FormatTests {
    @Test(arguments: [
        ("bytes 0-499/1234", ContentRange(range: 0..<500, completeLength: 1234)),
        ("bytes 500-1233/1234", ContentRange(range: 500..<1234, completeLength: 1234)),
        ("Bytes 7-7/*", ContentRange(range: 7..<8, completeLength: nil)),
        (" bytes 0-0/1 ", ContentRange(range: 0..<1, completeLength: 1)),
    ])
    func contentRangesParse(_ header: String, _ expected: ContentRange) {
        #expect(ContentRange(header: header) == expected)
    }

    @Test(arguments: ["bytes */1234", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-5/10", "bytes 0-5", "items 0-5/10",
                      "bytes 0-5/x", "bytes +1-5/10", "bytes 0-18446744073709551615/*", ""])
    func malformedContentRangesDoNot(_ header: String) {
        #expect(ContentRange(header: header) == nil)
    }

    @Test func requestHeadersAskForIdentityAndTheRange() {
        let url = URL(string: "https://h/f")!
        #expect(HTTPRequest(url: url, ifRange: "\"x\"").headerFields.map(\.name) == ["Accept-Encoding"])
        let ranged = HTTPRequest(url: url, range: 10..<20, ifRange: "\"x\"")
        #expect(ranged.headerFields.map { "\($0.name): \($0.value)" } == ["Accept-Encoding: identity", "Range: bytes=10-19", "If-Range: \"x\""])
        #expect(isStrongETag("\"6b05-186a0\""))
        #expect(!isStrongETag("W/\"6b05\""))
        #expect(!isStrongETag("6b05"))
    }

    @Test func hashesReadAndWriteHex() {
        let hash = ContentHash.of(Array("abc".utf8))
        #expect(hash.hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentHash(hex: hash.hex.uppercased()) == hash)
        #expect(ContentHash(hex: String(hash.hex.dropLast())) == nil)
        #expect(ContentHash(hex: String(hash.hex.dropLast()) + "g") == nil)
        #expect(ContentHash(bytes: [1, 2]) == nil)
    }

    @Test func delaysDoubleUpToTheirBound() {
        let policy = RetryPolicy(maxAttempts: 9, initialDelay: .milliseconds(100), maxDelay: .seconds(1), maxDuration: .seconds(60))
        #expect((1...6).map { policy.delay(afterFailures: $0) } == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1), .seconds(1)])
        #expect(policy.delay(afterFailures: 3, jitter: 0.5) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 3, jitter: 0) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 500) == .seconds(1))
    }

    @Test func onlyHTTPSUnlessPlainHTTPIsAllowed() throws {
        var options = FetchOptions()
        try options.check(URL(string: "https://cdn.example.com/app.bundle")!)
        for refused in ["http://cdn.example.com/a", "ftp://h/a", "file:///etc/passwd", "https:///nohost"] {
            #expect(throws: AssetPackError.self, "\(refused)") { try options.check(URL(string: refused)!) }
        }
        options.allowsPlainHTTP = true
        try options.check(URL(string: "http://127.0.0.1:8080/a")!)
        #expect(throws: AssetPackError.self) { try options.check(URL(string: "ftp://h/a")!) }
    }


    @Test func bundlePathsArePercentEncoded() {
        let bundle = RemoteBundle(URL(string: "https://cdn.example.com/v2/app.bundle")!)
        #expect(bundle.url(of: "a b/grüß.txt").absoluteString == "https://cdn.example.com/v2/app.bundle/a%20b/gr%C3%BC%C3%9F.txt")
        #expect(bundle.url(of: "assetpack-meta/identity").absoluteString == "https://cdn.example.com/v2/app.bundle/assetpack-meta/identity")
        let slashed = RemoteBundle(URL(string: "https://cdn.example.com/app.bundle/")!)
        #expect(slashed.url(of: "x/y").absoluteString == "https://cdn.example.com/app.bundle/x/y")
    }
}
