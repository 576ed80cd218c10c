/// A non-blocking TCP connection, owned by this object and closed when it goes away.
///
/// Nothing here waits except ``wait(for:milliseconds:)``: ``send(_:)`` and ``receive(into:)`` return nil
/// when the call would block, and the caller decides how long to wait for the socket (with `poll(2)`) and
/// what to do meanwhile. Errors are ``SystemError``s naming the call and ``peer`` (`host:port`).
package final class StreamSocket: @unchecked Sendable {
    /// What ``wait(for:milliseconds:)`` waits for.
    package enum Readiness: Sendable {
        /// Bytes to read, the peer's end of the stream, or an error.
        case readable
        /// Room to write, or a connection attempt that ended (either way).
        case writable
    }

    /// The descriptor.
    package let fd: Int32
    /// `host:port` as messages show it.
    package let peer: String

    private init(fd: Int32, peer: String) {
        self.fd = fd
        self.peer = peer
    }

    deinit { _ = system_close(fd) }

    /// A new socket connecting to `address` with `TCP_NODELAY` set (`socket(2)`, `setsockopt(2)`,
    /// `connect(2)`). The connection is usually still in progress: wait until ``Readiness/writable``, then
    /// ask ``connectionResult()``.
    package static func connect(to address: SocketAddress, peer: String) throws(SystemError) -> StreamSocket {
        let fd = try systemCall("socket", peer) { system_streamSocket(address.family) }.get()
        let socket = StreamSocket(fd: fd, peer: peer)
        _ = try systemCall("setsockopt(TCP_NODELAY)", peer) { system_setNoDelay(fd) }.get()
        let started = address.bytes.withUnsafeBytes { raw in
            systemCall("connect", peer) { system_connect(fd, raw.baseAddress!, UInt32(raw.count)) }
        }
        _ = try started.value(orNilFor: Errno(rawValue: _EINPROGRESS))
        return socket
    }

    /// Whether the connection attempt succeeded, once the socket is writable (`getsockopt(SO_ERROR)`).
    package func connectionResult() throws(SystemError) {
        var value: Int32 = 0
        _ = try systemCall("getsockopt(SO_ERROR)", peer) { system_socketError(fd, &value) }.get()
        if value != 0 { throw SystemError("connect", Errno(rawValue: value), path: peer) }
    }

    /// Waits up to `milliseconds` (`poll(2)`) for `readiness`; true when it came (or the socket failed or was
    /// closed by the peer, which the next call then reports), false when the time ran out.
    package func wait(for readiness: Readiness, milliseconds: Int32) throws(SystemError) -> Bool {
        var returned: Int16 = 0
        let events = readiness == .readable ? _POLLIN : _POLLOUT
        return try systemCall("poll", peer) { system_poll(fd, events, milliseconds, &returned) }.get() > 0
    }

    /// `send(2)` of as many of `bytes` as the socket takes now: their count, or nil when it takes none
    /// without blocking.
    package func send(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try systemCall("send", peer) { system_send(fd, bytes.baseAddress, bytes.count) }.value(orNilFor: .wouldBlock, .tryAgain)
    }

    /// `recv(2)` of the bytes that arrived, at most `buffer.count`: their count, 0 at the peer's end of the
    /// stream, or nil when none are there yet.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try systemCall("recv", peer) { system_recv(fd, buffer.baseAddress, buffer.count) }.value(orNilFor: .wouldBlock, .tryAgain)
    }

    /// True when the socket has something to read right now (bytes, or the peer's end): for an idle kept-alive
    /// connection, a sign that the server closed it or sent what it should not have.
    package var hasPendingInput: Bool { (try? wait(for: .readable, milliseconds: 0)) ?? true }
}

extension Errno {
    /// `EAGAIN`: the call would block (non-blocking descriptors).
    package static var tryAgain: Errno { Errno(rawValue: _EAGAIN) }
    /// `EWOULDBLOCK`: the call would block (the same value as ``tryAgain`` on Linux).
    package static var wouldBlock: Errno { Errno(rawValue: _EWOULDBLOCK) }
}
