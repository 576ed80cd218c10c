import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP proxy on 127.0.0.1 in front of a test server, that injects one fault into chosen responses:
/// drops the connection part-way, answers an error status, stalls, truncates, flips a byte, ignores `Range`.
///
/// One request per connection (it asks upstream with `Connection: close` and tells the client the same).
/// It is bounded and stops by itself: it accepts at most `maxConnections`, a client's socket has a 600 s timeout (the
/// tests' request timeout: a client starved of threads while the whole suite runs must not see a fault nobody planned,
/// which would also move the numbers of the requests after it), upstream's 5 s, a stall lasts at most its duration,
/// and after `lifetime` it stops accepting; ``stop()`` / `deinit` end it at once. Only loopback addresses are used.
public final class FaultProxy: @unchecked Sendable {
    /// What to do to one response.
    public enum Fault: Sendable, Equatable {
        /// Pass it through unchanged.
        case none
        /// Send the head and `bytes` bytes of the body, then close the connection.
        case dropAfter(bytes: Int)
        /// Answer this status (500, 503, …) with an empty body, without asking upstream.
        case status(Int)
        /// Send the head and `afterBytes` bytes of the body, then nothing for `seconds`, then close.
        case stall(afterBytes: Int, seconds: Double)
        /// Shorten the response to `bytes` body bytes with headers that agree (Content-Length, Content-Range),
        /// so it looks complete.
        case truncate(bytes: Int)
        /// Invert body byte `at`.
        case flipByte(at: Int)
        /// Remove `Range` and `If-Range` from the request, as a server without range support would ignore them.
        case ignoreRange
    }

    /// The proxy's port on 127.0.0.1.
    public var port: UInt16 { core.port }
    private let core: Core

    /// A proxy to 127.0.0.1:`upstream` that applies `faults(n)` to the n-th request (from 0).
    /// - Parameter onRequest: called with n before request n is handled (e.g. to change a file on the server).
    public init(upstream: UInt16, lifetime: TimeInterval = 600, maxConnections: Int = 256,
                onRequest: (@Sendable (Int) -> Void)? = nil, faults: @escaping @Sendable (Int) -> Fault) throws {
        core = try Core(upstream: upstream, lifetime: lifetime, maxConnections: maxConnections, onRequest: onRequest, faults: faults)
    }

    /// A proxy that applies `fault` to the first `count` requests and passes the rest through.
    public convenience init(upstream: UInt16, first count: Int, _ fault: Fault,
                            onRequest: (@Sendable (Int) -> Void)? = nil) throws {
        try self.init(upstream: upstream, onRequest: onRequest) { $0 < count ? fault : .none }
    }

    /// A proxy that applies `fault` to every request.
    public convenience init(upstream: UInt16, always fault: Fault) throws {
        try self.init(upstream: upstream) { _ in fault }
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT/` + `path`.
    public func url(_ path: String = "") -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Requests received so far.
    public var requestCount: Int { core.requestCount }

    /// Stops accepting, closes every connection and waits (at most 3 s) for the threads to end.
    public func stop() { core.stop() }

    /// The listener, the connections and their threads; the threads hold this, not the proxy, so the proxy's
    /// `deinit` can stop them.
    private final class Core: @unchecked Sendable {
        let port: UInt16
        private let upstream: UInt16
        private let faults: @Sendable (Int) -> Fault
        private let onRequest: (@Sendable (Int) -> Void)?
        private let listener: Int32
        private let lock = NSLock()
        private var stopped = false
        private var accepted = 0
        private var openSockets: Set<Int32> = []
        private let done = DispatchGroup()

        init(upstream: UInt16, lifetime: TimeInterval = 600, maxConnections: Int = 256,
             onRequest: (@Sendable (Int) -> Void)? = nil, faults: @escaping @Sendable (Int) -> Fault) throws {
            self.upstream = upstream
            self.faults = faults
            self.onRequest = onRequest
            (listener, port) = try LoopbackSocket.listen()
            let deadline = Date().addingTimeInterval(lifetime)
            done.enter()
            Thread.detachNewThread { [self] in
                acceptLoop(until: deadline, maxConnections: maxConnections)
                done.leave()
            }
        }

        var requestCount: Int { lock.withLock { accepted } }

        func stop() {
            let sockets: Set<Int32>? = lock.withLock {
                guard !stopped else { return nil }
                stopped = true
                return openSockets
            }
            guard let sockets else { return }
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
            _ = done.wait(timeout: .now() + 3)
            close(listener)
        }

        private var isStopped: Bool { lock.withLock { stopped } }

        private func acceptLoop(until deadline: Date, maxConnections: Int) {
            var handled = 0
            while !isStopped, Date() < deadline, handled < maxConnections {
                var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let client = accept(listener, nil, nil)
                guard client >= 0 else { continue }
                LoopbackSocket.setTimeouts(client, 600)
                let index: Int? = lock.withLock {
                    guard !stopped else { return nil }
                    defer { accepted += 1 }
                    openSockets.insert(client)
                    return accepted
                }
                guard let index else {
                    close(client)
                    break
                }
                handled += 1
                done.enter()
                Thread.detachNewThread { [self] in
                    serve(client, index: index)
                    lock.withLock { _ = openSockets.remove(client) }
                    close(client)
                    done.leave()
                }
            }
        }

        private func serve(_ client: Int32, index: Int) {
            guard let request = LoopbackSocket.readHead(client) else { return }
            onRequest?(index)
            let fault = faults(index)
            if case .status(let status) = fault {
                LoopbackSocket.send(client, Array("HTTP/1.1 \(status) Injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            guard let server = try? LoopbackSocket.connect(port: upstream) else { return }
            lock.withLock { _ = openSockets.insert(server) }
            defer {
                lock.withLock { _ = openSockets.remove(server) }
                close(server)
            }
            let head = FaultProxy.rewrite(request: request.head, dropRange: fault == .ignoreRange)
            guard LoopbackSocket.send(server, Array(head.utf8) + request.rest),
                  let response = LoopbackSocket.readHead(server) else { return }
            relay(response, from: server, to: client, fault: fault)
        }

        /// Sends the response head (rewritten for `fault`) and its body, applying `fault` on the way.
        private func relay(_ response: (head: String, rest: [UInt8]), from server: Int32, to client: Int32, fault: Fault) {
            var limit = Int.max
            var head = FaultProxy.setHeader("Connection", "close", in: response.head)
            switch fault {
            case .dropAfter(let bytes), .stall(let bytes, _): limit = bytes
            case .truncate(let bytes):
                limit = bytes
                head = FaultProxy.truncate(head, to: bytes)
            default: break
            }
            guard LoopbackSocket.send(client, Array(head.utf8)) else { return }
            var sent = 0
            var chunk = response.rest
            while sent < limit, !isStopped {
                if chunk.isEmpty { chunk = LoopbackSocket.receive(server) }
                if chunk.isEmpty { break }
                chunk = Array(chunk.prefix(limit - sent))
                if case .flipByte(let at) = fault, at >= sent, at < sent + chunk.count { chunk[at - sent] ^= 0xFF }
                guard LoopbackSocket.send(client, chunk) else { return }
                sent += chunk.count
                chunk = []
            }
            if case .stall(_, let seconds) = fault {
                let until = Date().addingTimeInterval(seconds)
                while Date() < until, !isStopped { usleep(10_000) }
            }
        }
    }

    /// The request head with `Connection: close`, and without `Range`/`If-Range` when `dropRange`.
    public static func rewrite(request head: String, dropRange: Bool) -> String {
        var result = setHeader("Connection", "close", in: head)
        if dropRange { result = removeHeaders(["range", "if-range"], from: result) }
        return result
    }

    private static func lines(_ head: String) -> [String] {
        head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
    }

    private static func join(_ lines: [String]) -> String { lines.joined(separator: "\r\n") + "\r\n\r\n" }

    private static func name(_ line: String) -> String {
        line.split(separator: ":", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    static func removeHeaders(_ names: Set<String>, from head: String) -> String {
        let kept = lines(head).enumerated().filter { $0.offset == 0 || !names.contains(name($0.element)) }.map(\.element)
        return join(kept)
    }

    static func setHeader(_ field: String, _ value: String, in head: String) -> String {
        join(lines(removeHeaders([field.lowercased()], from: head)) + ["\(field): \(value)"])
    }

    /// A response head announcing only `bytes` body bytes: Content-Length, and Content-Range when present.
    public static func truncate(_ head: String, to bytes: Int) -> String {
        var result = setHeader("Content-Length", String(bytes), in: head)
        if let line = lines(head).first(where: { name($0) == "content-range" }),
           let spec = line.split(separator: " ").last?.split(separator: "/"), spec.count == 2,
           let first = spec[0].split(separator: "-").first.flatMap({ Int($0) }) {
            result = setHeader("Content-Range", "bytes \(first)-\(first + bytes - 1)/\(spec[1])", in: result)
        }
        return result
    }
}
