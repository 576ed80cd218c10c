import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP server on 127.0.0.1 that answers each request with bytes a test wrote by hand: malformed
/// heads, chunked bodies with extensions and trailers, bodies cut short, stalls. It counts the connections
/// it accepts, so a test can see a client keep one alive across requests.
///
/// Requests are read one after the other on each connection (a head up to `\r\n\r\n`); the reply decides
/// whether the connection stays open. Bounded: 600 s socket timeouts, the tests' request timeout (a kept-alive
/// connection outlives a test starved of threads for minutes while the whole suite runs), a stall lasts at most
/// its duration, and ``stop()`` / `deinit` close everything.
public final class ScriptedHTTPServer: @unchecked Sendable {
    /// The answer to one request.
    public struct Reply: Sendable {
        /// The bytes sent, head and body, exactly as given.
        public var bytes: [UInt8]
        /// Close the connection after sending them (else wait for the next request on it).
        public var close: Bool
        /// Send them in pieces of this many bytes, a millisecond apart (0: at once).
        public var pieceSize: Int
        /// After sending, wait this long (then close when `close`).
        public var stall: TimeInterval

        public init(_ text: String, close: Bool = false, pieceSize: Int = 0, stall: TimeInterval = 0) {
            self.init(Array(text.utf8), close: close, pieceSize: pieceSize, stall: stall)
        }

        public init(_ bytes: [UInt8], close: Bool = false, pieceSize: Int = 0, stall: TimeInterval = 0) {
            self.bytes = bytes
            self.close = close
            self.pieceSize = pieceSize
            self.stall = stall
        }

        /// `200 OK` with `Content-Length` and `body`.
        public static func ok(_ body: [UInt8], headers: String = "") -> Reply {
            Reply(Array("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\(headers)\r\n".utf8) + body)
        }
    }

    /// The port on 127.0.0.1.
    public let port: UInt16
    private let listener: Int32
    private let reply: @Sendable (_ head: String, _ index: Int) -> Reply
    private let lock = NSLock()
    private var stopped = false
    private var sockets: Set<Int32> = []
    private var heads: [String] = []
    private var accepted = 0
    private let done = DispatchGroup()

    /// A server answering request `index` (from 0, over all connections), whose head is `head`, with `reply`.
    public init(reply: @escaping @Sendable (_ head: String, _ index: Int) -> Reply) throws {
        self.reply = reply
        (listener, port) = try LoopbackSocket.listen()
        done.enter()
        Thread.detachNewThread { [self] in
            acceptLoop()
            done.leave()
        }
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/` + `path`.
    public func url(_ path: String = "") -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Connections accepted so far.
    public var connections: Int { lock.withLock { accepted } }

    /// The request heads received so far, in order.
    public var requests: [String] { lock.withLock { heads } }

    /// Stops accepting, closes every connection and waits (at most 3 s) for the threads.
    public func stop() {
        let open: Set<Int32>? = lock.withLock {
            guard !stopped else { return nil }
            stopped = true
            return sockets
        }
        guard let open else { return }
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        _ = done.wait(timeout: .now() + 3)
        close(listener)
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            LoopbackSocket.setTimeouts(client, 600)
            let admitted = lock.withLock {
                guard !stopped else { return false }
                accepted += 1
                sockets.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                return
            }
            done.enter()
            Thread.detachNewThread { [self] in
                serve(client)
                lock.withLock { _ = sockets.remove(client) }
                close(client)
                done.leave()
            }
        }
    }

    private func serve(_ client: Int32) {
        while !isStopped, let request = LoopbackSocket.readHead(client) {
            let index: Int = lock.withLock {
                heads.append(request.head)
                return heads.count - 1
            }
            let answer = reply(request.head, index)
            let size = answer.pieceSize > 0 ? answer.pieceSize : max(answer.bytes.count, 1)
            for start in stride(from: 0, to: answer.bytes.count, by: size) {
                guard LoopbackSocket.send(client, answer.bytes[start..<min(start + size, answer.bytes.count)]) else { return }
                if answer.pieceSize > 0 { usleep(1000) }
            }
            let until = Date().addingTimeInterval(answer.stall)
            while Date() < until, !isStopped { usleep(5000) }
            if answer.close { return }
        }
    }
}
