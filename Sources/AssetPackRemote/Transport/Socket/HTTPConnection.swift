import AssetPack
import AssetPackSystem
import Foundation

/// One TCP connection to an HTTP/1.1 server, with the bytes received but not yet consumed: what a
/// ``SocketHTTPTransport`` request writes its head to and reads its response from, and what the
/// ``ConnectionPool`` keeps between requests.
///
/// Reads take what is buffered first, then go straight to the socket: a body chunk is received into the
/// array handed to the reader, never copied through this buffer. The buffer holds at most a response head
/// (``SocketHTTPTransport/maximumHeadBytes``) or one chunk-size line.
final class HTTPConnection: @unchecked Sendable {
    /// `host:port`, the pool's key.
    let endpoint: String
    let socket: StreamSocket
    /// Requests sent on this connection so far (a reused connection has sent one or more).
    var requests = 0
    private var buffer: [UInt8] = []
    private var start = 0

    private init(endpoint: String, socket: StreamSocket) {
        self.endpoint = endpoint
        self.socket = socket
    }

    /// Bytes received and not consumed.
    var buffered: Int { buffer.count - start }

    /// Connects to `host`:`port`, trying each of its addresses in turn within `wait`'s deadline.
    static func open(host: String, port: UInt16, wait: SocketWait) throws(AssetPackError) -> HTTPConnection {
        let endpoint = endpoint(host, port)
        let addresses: [SocketAddress]
        do {
            addresses = try SocketAddress.lookUp(host: host, port: port)
        } catch {
            throw AssetPackError(.io, "cannot resolve the host name \(error.host): \(error.reason)", path: wait.url.absoluteString)
        }
        var failure = AssetPackError(.io, "no address to connect to", path: wait.url.absoluteString)
        for address in addresses {
            do {
                let socket = try StreamSocket.connect(to: address, peer: endpoint)
                try wait.until(socket, is: .writable)
                try socket.connectionResult()
                return HTTPConnection(endpoint: endpoint, socket: socket)
            } catch let error as SystemError {
                failure = SocketFailure.error(error, url: wait.url)
            } catch let error as AssetPackError {
                throw error  // a timeout or a cancellation ends the attempt
            } catch {
                failure = AssetPackError(.io, "\(error)", path: wait.url.absoluteString)
            }
        }
        throw failure
    }

    /// `host:port`, or `[host]:port` for an IPv6 address.
    static func endpoint(_ host: String, _ port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    // MARK: Writing

    /// Sends all of `bytes`.
    func send(_ bytes: [UInt8], wait: SocketWait) throws(AssetPackError) {
        var sent = 0
        while sent < bytes.count {
            let outcome = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try socket.send(UnsafeRawBufferPointer(rebasing: raw[sent...])) }
            }
            let count: Int?
            switch outcome {
            case .success(let value): count = value
            case .failure(let error): throw SocketFailure.error(error, url: wait.url)
            }
            if let count { sent += count } else { try wait.until(socket, is: .writable) }
        }
    }

    // MARK: Reading

    /// The next bytes, at most `limit` (> 0): buffered ones first, else one `recv` straight into the result;
    /// nil at the end of the stream.
    func read(upTo limit: Int, wait: SocketWait) throws(AssetPackError) -> [UInt8]? {
        if buffered > 0 {
            let count = min(limit, buffered)
            defer { consume(count) }
            return Array(buffer[start..<start + count])
        }
        var failure: SystemError?
        while true {
            var ended = false
            let bytes = [UInt8](unsafeUninitializedCapacity: limit) { raw, count in
                do throws(SystemError) {
                    let got = try socket.receive(into: UnsafeMutableRawBufferPointer(raw))
                    count = got ?? 0
                    ended = got == 0
                } catch {
                    failure = error
                    count = 0
                }
            }
            if let failure { throw SocketFailure.error(failure, url: wait.url) }
            if ended { return nil }
            if !bytes.isEmpty { return bytes }
            try wait.until(socket, is: .readable)
        }
    }

    /// The bytes up to the next CRLF (or bare LF), without it; nil when the stream ends before any byte of
    /// the line. Throws `tooLong` when `limit` bytes pass without a line end, and a closed connection when the
    /// stream ends inside the line (`what` names it).
    func readLine(limit: Int, tooLong: @autoclosure () -> AssetPackError, what: String,
                  wait: SocketWait) throws(AssetPackError) -> ArraySlice<UInt8>? {
        var scanned = 0  // bytes after `start` known to hold no line end (`fill` may move `start`)
        while true {
            if let end = buffer[(start + scanned)...].firstIndex(of: 0x0A) {
                let line = buffer[start..<(end > start && buffer[end - 1] == 0x0D ? end - 1 : end)]
                start = end + 1
                return line
            }
            scanned = buffered
            guard buffered < limit else { throw tooLong() }
            guard try fill(wait: wait) else {
                if buffered == 0 { return nil }
                throw SocketFailure.closed("in the middle of \(what)", url: wait.url)
            }
        }
    }

    /// Receives more bytes into the buffer; false at the end of the stream.
    func fill(wait: SocketWait) throws(AssetPackError) -> Bool {
        if start > 0, start == buffer.count || start >= 16 << 10 {
            buffer.removeFirst(start)
            start = 0
        }
        var failure: SystemError?
        while true {
            let old = buffer.count
            var got: Int?
            buffer.append(contentsOf: repeatElement(0, count: 16 << 10))
            buffer.withUnsafeMutableBytes { raw in
                do throws(SystemError) {
                    got = try socket.receive(into: UnsafeMutableRawBufferPointer(rebasing: raw[old...]))
                } catch {
                    failure = error
                }
            }
            buffer.removeLast(buffer.count - old - (got ?? 0))
            if let failure { throw SocketFailure.error(failure, url: wait.url) }
            if let got { return got > 0 }
            try wait.until(socket, is: .readable)
        }
    }

    /// The buffered bytes (for the head parser), and forgets the first `count` of them.
    var unread: ArraySlice<UInt8> { buffer[start...] }

    func consume(_ count: Int) { start += count }
}
