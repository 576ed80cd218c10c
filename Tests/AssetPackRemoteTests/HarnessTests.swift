import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The test servers themselves: nginx never outlives its test, the access log is read back exactly, and the
/// proxy rewrites heads as its faults say.
@Suite(ExternalTool.nginx.needed)
struct HarnessTests {
    @Test func nginxStoppedAtOnceLeavesNoProcess() async throws {
        for _ in 0..<5 {
            let server = try await startNginx()
            let pid = try #require(server.pid)
            #expect(NginxServer.isRunning(pid))
            server.stop()
            #expect(!NginxServer.isRunning(pid))
            #expect(server.pid == nil)
        }
    }

    @Test func aServerProcessKeepsNoDescriptorOfTheTestsOpen() throws {
        // A pipe as another test's short command would have it, open (not close-on-exec) while a server starts:
        // the server must not hold it, or that test would wait for its end of file as long as the server runs.
        let pipe = Pipe()
        let child = try ChildProcess(["sleep", "30"])
        defer { child.stop() }
        // `sleep` itself may hold a file of its own for a moment as it starts (its locale): a leaked descriptor stays.
        var held: [Int32] = []
        for _ in 0..<40 {
            held = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.pid)/fd").compactMap { Int32($0) }.sorted()
            if held == [0, 1, 2] { break }
            usleep(50_000)
        }
        #expect(held == [0, 1, 2], "the child holds \(held)")
        #expect(pipe.fileHandleForWriting.fileDescriptor > 2)
    }

    @Test func theAccessLogRecordsPathsStatusesBytesAndRangeHeaders() async throws {
        let server = try await startNginx(["dir/a b.bin": Array(repeating: 7, count: 1000)])
        let fd = try LoopbackSocket.connect(port: server.port)
        defer { close(fd) }
        let request = "GET /dir/a%20b.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=10-19\r\nIf-Range: \"tag\"\r\nConnection: close\r\n\r\n"
        LoopbackSocket.send(fd, Array(request.utf8))
        while !LoopbackSocket.receive(fd).isEmpty {}
        let log = await server.requests(atLeast: 1)
        #expect(log.count == 1)
        let entry = try #require(log.first)
        // The If-Range tag is not the file's: nginx answers the whole file.
        #expect(entry.path == "/dir/a b.bin")
        #expect(entry.status == 200)
        #expect(entry.bodyBytes == 1000)
        #expect(entry.bytesSent > 1000)
        #expect(entry.range == "bytes=10-19")
        #expect(entry.ifRange == "\"tag\"")
    }

    @Test func truncationRewritesLengthAndRange() {
        let head = "HTTP/1.1 206 Partial Content\r\nContent-Length: 100\r\nContent-Range: bytes 50-149/1000\r\n\r\n"
        let cut = FaultProxy.truncate(head, to: 30)
        #expect(cut.contains("Content-Length: 30\r\n"))
        #expect(cut.contains("Content-Range: bytes 50-79/1000\r\n"))
        #expect(cut.hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
        #expect(cut.hasSuffix("\r\n\r\n"))
    }

    @Test func ignoringRangeRemovesBothHeadersAndClosesTheConnection() {
        let head = "GET /f HTTP/1.1\r\nHost: x\r\nrange: bytes=1-2\r\nIf-Range: \"t\"\r\nConnection: keep-alive\r\n\r\n"
        let rewritten = FaultProxy.rewrite(request: head, dropRange: true)
        #expect(rewritten == "GET /f HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    }
}
