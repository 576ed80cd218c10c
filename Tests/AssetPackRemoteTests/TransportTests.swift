import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// ``URLSessionTransport`` on its own, and both clients where a test applies to both: redirects and the
/// plain-HTTP rule, deadlines, cancellation.
@Suite(ExternalTool.nginx.needed)
struct TransportTests {
    let data = testBytes(40_000, seed: 3)

    @Test(arguments: TransportChoice.allCases) func aRedirectIsFollowedWhenItsSchemeIsAllowed(_ client: TransportChoice) async throws {
        let site = try await Site(["new.bin": data], serverConfig: "location = /old.bin { return 302 /new.bin; }")
        let (bytes, _) = try await site.fetch(fileItem(site.url("old.bin"), data), transport: client.make())
        #expect(bytes == data)
        #expect(await site.server.requests(atLeast: 2).map(\.status) == [302, 200])
    }

    @Test func aRedirectToPlainHTTPIsNotFollowedUnlessAllowed() async throws {
        let site = try await Site(["new.bin": data], serverConfig: "location = /old.bin { return 302 /new.bin; }")
        let transport = URLSessionTransport()
        let request = HTTPRequest(url: site.url("old.bin"), timeout: .seconds(2), allowsPlainHTTP: false)
        // URLSession either hands back the 3xx itself, which the fetcher refuses, or ends the task: both say why.
        do {
            let response = try await transport.asyncGet(request)
            response.body.cancel()
            #expect(response.status == 302)
            let failure = ResponsePlan.failure(response, url: request.url)
            #expect(failure.error.code == .invalidArgument)
            #expect(failure.error.message.hasSuffix("not followed: plain HTTP is not allowed"))
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("plain HTTP, not allowed"))
        }
        #expect(await site.server.requests(atLeast: 1).map(\.path) == ["/old.bin"])
    }

    @Test(arguments: TransportChoice.allCases) func noResponseHeadInTimeIsATimeout(_ client: TransportChoice) async throws {
        // A listening socket that never accepts: the connection is made, no answer ever comes.
        let (socket, port) = try LoopbackSocket.listen()
        defer { close(socket) }
        let transport = client.make()
        do {
            _ = try await transport.asyncGet(HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/x")!, timeout: .milliseconds(200), allowsPlainHTTP: true))
            Issue.record("a response came from nowhere")
        } catch {
            #expect(error.code == .io)
            #expect(error.message.hasPrefix("timed out"))
        }
    }

    @Test(arguments: TransportChoice.allCases) func aCancelledFetchEndsCancelled(_ client: TransportChoice) async throws {
        // Stalled for longer than the test may take: only the cancellation can end this fetch.
        let site = try await Site(["f.bin": data], faults: { _ in .stall(afterBytes: 1000, seconds: 600) })
        let item = fileItem(site.url("f.bin"), data)
        let task = Task { try await site.fetch(item, options: testOptions(timeout: .seconds(600)), transport: client.make()) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let error = await expectFailure { try await task.value }
        #expect(error?.code == .cancelled)
    }
}
