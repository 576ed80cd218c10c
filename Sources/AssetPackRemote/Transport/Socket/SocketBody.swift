import AssetPack
import AssetPackSystem
import Foundation

/// The body of a response read from an ``HTTPConnection``, as the ``ResponseHead/Framing`` says: a length,
/// chunks (RFC 9112, 7.1), or up to the server's close. A body read to its end hands its connection back to
/// the pool; one cancelled, failed or cut short closes it.
final class SocketBody: HTTPBody, @unchecked Sendable {
    private enum State {
        case length(remaining: UInt64)
        case chunkSize
        case chunkData(remaining: UInt64)
        case chunkEnd
        case trailers(bytes: Int)
        case untilClose
        case done
    }

    private let url: URL
    private let timeout: Duration
    private let cancellation: ExpansionCancellation
    private let chunkSize: Int
    private let reusable: Bool
    private let pool: ConnectionPool
    private let lock = Monitor()
    /// Guarded by `lock`: the connection while the body is unread; nil once it ended or was cancelled.
    private var connection: HTTPConnection?
    private var cancelled = false
    private var reading = false
    /// Touched only by the one reader (``HTTPBody/next()`` is called by one task at a time).
    private var state: State
    private var received: UInt64 = 0

    init(_ connection: HTTPConnection, framing: ResponseHead.Framing, keepsAlive: Bool, request: HTTPRequest,
         cancellation: ExpansionCancellation, chunkSize: Int, pool: ConnectionPool) {
        self.connection = connection
        url = request.url
        timeout = request.timeout
        self.cancellation = cancellation
        self.chunkSize = chunkSize
        reusable = keepsAlive
        self.pool = pool
        state = switch framing {
        case .empty: .done
        case .length(let count): .length(remaining: count)
        case .chunked: .chunkSize
        case .untilClose: .untilClose
        }
        if case .done = state { finish(reuse: true) }
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        guard let connection = begin() else { return nil }
        let wait = SocketWait(url, timeout: timeout, for: "further bytes of the body",
                              cancellation: cancellation) { [weak self] in self?.isCancelled ?? true }
        do {
            let bytes = try step(connection, wait)
            end()
            return bytes
        } catch {
            end()
            finish(reuse: false)
            if error.code == .cancelled, isCancelled, !cancellation.isCancelled { return nil }
            throw error
        }
    }

    func cancel() {
        let closing: HTTPConnection? = lock.withLock {
            cancelled = true
            guard !reading else { return nil }
            defer { connection = nil }
            return connection
        }
        _ = closing  // released here: closed, not pooled
    }

    // MARK: Reading

    /// Reads until some bytes of the body come (returned) or it ends (nil).
    private func step(_ connection: HTTPConnection, _ wait: SocketWait) throws(AssetPackError) -> [UInt8]? {
        while true {
            switch state {
            case .done:
                return nil
            case .length(let remaining):
                guard let bytes = try connection.read(upTo: Int(min(remaining, UInt64(chunkSize))), wait: wait) else {
                    throw SocketFailure.closed("after \(received) of the \(received + remaining) bytes of the body", url: url)
                }
                state = remaining == UInt64(bytes.count) ? .done : .length(remaining: remaining - UInt64(bytes.count))
                if case .done = state { finish(reuse: true) }
                return counted(bytes)
            case .untilClose:
                guard let bytes = try connection.read(upTo: chunkSize, wait: wait) else {
                    state = .done
                    finish(reuse: false)
                    return nil
                }
                return counted(bytes)
            case .chunkData(let remaining):
                guard let bytes = try connection.read(upTo: Int(min(remaining, UInt64(chunkSize))), wait: wait) else {
                    throw SocketFailure.closed("inside a chunk, after \(received) bytes of the body", url: url)
                }
                state = remaining == UInt64(bytes.count) ? .chunkEnd : .chunkData(remaining: remaining - UInt64(bytes.count))
                return counted(bytes)
            case .chunkSize, .chunkEnd, .trailers:
                try frame(connection, wait)
            }
        }
    }

    /// Reads one framing line of a chunked body: a chunk's size, the CRLF after its data, or a trailer line.
    private func frame(_ connection: HTTPConnection, _ wait: SocketWait) throws(AssetPackError) {
        func line(_ limit: Int, _ what: String) throws(AssetPackError) -> ArraySlice<UInt8> {
            let tooLong = SocketFailure.protocolError("\(what) longer than \(limit) bytes", url: url)
            guard let line = try connection.readLine(limit: limit, tooLong: tooLong, what: what, wait: wait) else {
                throw SocketFailure.closed("before the end of the chunked body, after \(received) bytes", url: url)
            }
            return line
        }
        switch state {
        case .chunkSize:
            let line = try line(4096, "a chunk-size line")
            guard let size = ChunkSizeLine.parse(line) else {
                throw SocketFailure.protocolError("bad chunk-size line after \(received) bytes of the body", url: url)
            }
            state = size == 0 ? .trailers(bytes: 0) : .chunkData(remaining: size)
        case .chunkEnd:
            let line = try line(2, "the end of a chunk")
            guard line.isEmpty else { throw SocketFailure.protocolError("a chunk longer than its size line says", url: url) }
            state = .chunkSize
        case .trailers(let bytes):
            let line = try line(8192, "a trailer field")
            guard bytes + line.count <= 65536 else { throw SocketFailure.protocolError("trailer fields longer than 64 KiB", url: url) }
            state = line.isEmpty ? .done : .trailers(bytes: bytes + line.count + 2)
            if line.isEmpty { finish(reuse: true) }
        default:
            break
        }
    }

    private func counted(_ bytes: [UInt8]) -> [UInt8] {
        received += UInt64(bytes.count)
        return bytes
    }

    // MARK: The connection's owner

    private var isCancelled: Bool { lock.withLock { cancelled } }

    /// The connection, marked in use by the reader; nil when the body ended or was cancelled.
    private func begin() -> HTTPConnection? {
        lock.withLock {
            guard !cancelled, let connection else { return nil }
            reading = true
            return connection
        }
    }

    /// The reader is done with the connection; one cancelled meanwhile is closed now.
    private func end() {
        let closing: HTTPConnection? = lock.withLock {
            reading = false
            guard cancelled else { return nil }
            defer { connection = nil }
            return connection
        }
        _ = closing
    }

    /// The body is over: the connection goes back to the pool (`reuse`, a clean end of a kept-alive
    /// connection with nothing extra buffered) or is closed.
    private func finish(reuse: Bool) {
        let ended: HTTPConnection? = lock.withLock {
            defer { connection = nil }
            return connection
        }
        if let ended, reuse, reusable, ended.buffered == 0 { pool.checkIn(ended) }
    }
}

/// A chunk-size line (RFC 9112, 7.1): hex digits, then optional whitespace and `;extensions`, which are ignored.
enum ChunkSizeLine {
    /// The size; nil when the line does not start with 1 to 15 hex digits followed by nothing, whitespace or `;`.
    static func parse(_ line: ArraySlice<UInt8>) -> UInt64? {
        var size: UInt64 = 0
        var digits = 0
        for byte in line {
            let value: UInt8
            switch byte {
            case 0x30...0x39: value = byte - 0x30
            case 0x41...0x46: value = byte - 0x41 + 10
            case 0x61...0x66: value = byte - 0x61 + 10
            case 0x3B, 0x20, 0x09: return digits > 0 ? size : nil
            default: return nil
            }
            digits += 1
            guard digits <= 15 else { return nil }
            size = size << 4 | UInt64(value)
        }
        return digits > 0 ? size : nil
    }
}
