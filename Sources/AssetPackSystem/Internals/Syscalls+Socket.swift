#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported platform")
#endif

// The socket calls of the plain-HTTP client (AssetPackRemote's SocketHTTPTransport), as thin `system_*` shims
// beside those of Syscalls.swift: the only other file of assetpack that calls the C library. Each takes and
// returns what the C function does; StreamSocket.swift and SocketAddress.swift build on them.

// MARK: - Constants

internal var _EAGAIN: Int32 { EAGAIN }
internal var _EWOULDBLOCK: Int32 { EWOULDBLOCK }
internal var _EINPROGRESS: Int32 { EINPROGRESS }
internal var _AF_INET: Int32 { AF_INET }
internal var _AF_INET6: Int32 { AF_INET6 }
internal var _POLLIN: Int16 { Int16(POLLIN) }
internal var _POLLOUT: Int16 { Int16(POLLOUT) }

// MARK: - Calls

/// `socket(2)` of a TCP stream in `family`, non-blocking and close-on-exec (and, on Darwin, without
/// `SIGPIPE`); -1 and `errno` on failure.
internal func system_streamSocket(_ family: Int32) -> Int32 {
    #if canImport(Darwin)
    let fd = socket(family, SOCK_STREAM, 0)
    guard fd >= 0 else { return fd }
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    return fd
    #else
    return socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #endif
}

/// `setsockopt(2)` of `TCP_NODELAY` to 1: small writes (a request head) leave at once.
internal func system_setNoDelay(_ fd: Int32) -> Int32 {
    var yes: Int32 = 1
    return setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
}

/// `connect(2)`.
internal func system_connect(_ fd: Int32, _ address: UnsafeRawPointer, _ length: UInt32) -> Int32 {
    connect(fd, address.assumingMemoryBound(to: sockaddr.self), socklen_t(length))
}

/// `getsockopt(2)` of `SO_ERROR`: the outcome of a non-blocking `connect` (0 when it succeeded).
internal func system_socketError(_ fd: Int32, _ value: UnsafeMutablePointer<Int32>) -> Int32 {
    var length = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, value, &length)
}

/// `poll(2)` of one descriptor for `events`; the events that occurred go to `returned`.
internal func system_poll(_ fd: Int32, _ events: Int16, _ milliseconds: Int32, _ returned: UnsafeMutablePointer<Int16>) -> Int32 {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    let count = poll(&entry, 1, milliseconds)
    returned.pointee = entry.revents
    return count
}

/// `send(2)`, without `SIGPIPE` when the peer is gone (`MSG_NOSIGNAL`; Darwin sockets have `SO_NOSIGPIPE`).
internal func system_send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    send(fd, buffer, count, 0)
    #else
    send(fd, buffer, count, Int32(MSG_NOSIGNAL))
    #endif
}

/// `recv(2)`.
internal func system_recv(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    recv(fd, buffer, count, 0)
}

/// `getaddrinfo(3)` of `host` and `port` for TCP, calling `body` with each address found (family, bytes and
/// length of its `sockaddr`) in the order given; returns 0, or the `EAI_*` code.
internal func system_getaddrinfo(_ host: String, _ port: String,
                                 _ body: (_ family: Int32, _ address: UnsafeRawPointer, _ length: UInt32) -> Void) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Darwin)
    hints.ai_socktype = SOCK_STREAM
    #else
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #endif
    hints.ai_flags = AI_ADDRCONFIG
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, port, &hints, &list)
    guard status == 0 else { return status }
    defer { freeaddrinfo(list) }
    var next = list
    while let entry = next {
        if let address = entry.pointee.ai_addr { body(entry.pointee.ai_family, address, UInt32(entry.pointee.ai_addrlen)) }
        next = entry.pointee.ai_next
    }
    return 0
}

/// `gai_strerror(3)`: the text of a `getaddrinfo` failure.
internal func system_gaiStrerror(_ code: Int32) -> String { String(cString: gai_strerror(code)) }
