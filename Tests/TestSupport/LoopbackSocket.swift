import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Small blocking TCP helpers for test servers on 127.0.0.1 only (the proxy, free ports for nginx).
public enum LoopbackSocket {
    /// A socket listening on 127.0.0.1 at `port` (0: a free port), and the port it got.
    public static func listen(port: UInt16 = 0, backlog: Int32 = 64) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let error = failure("bind/listen")
            close(fd)
            throw error
        }
        return (fd, try localPort(fd))
    }

    /// A socket bound to a free port on 127.0.0.1 but not listening: while it is open no one else gets the port,
    /// and a connection to it is refused. Close it when done.
    public static func bound() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var address = loopback(0)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = failure("bind")
            close(fd)
            throw error
        }
        return (fd, try localPort(fd))
    }

    /// A port that was free a moment ago (for a server that binds it itself; retry if it is taken by then).
    public static func freePort() throws -> UInt16 {
        let (fd, port) = try listen()
        close(fd)
        return port
    }

    /// A connection to 127.0.0.1:`port`, with send and receive timeouts.
    public static func connect(port: UInt16, timeout: TimeInterval = 5) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw failure("socket") }
        var address = loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = failure("connect")
            close(fd)
            throw error
        }
        setTimeouts(fd, timeout)
        return fd
    }

    /// Sets `SO_RCVTIMEO` and `SO_SNDTIMEO`, so no read or write blocks longer than `seconds`.
    public static func setTimeouts(_ fd: Int32, _ seconds: TimeInterval) {
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - floor(seconds)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    public static func send(_ fd: Int32, _ bytes: some Collection<UInt8>) -> Bool {
        var rest = Array(bytes)[...]
        while !rest.isEmpty {
            let sent = rest.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            rest = rest.dropFirst(sent)
        }
        return true
    }

    /// Up to `count` bytes; empty at the end, on error or on timeout.
    public static func receive(_ fd: Int32, upTo count: Int = 16384) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
            if got < 0, errno == EINTR { continue }
            return got > 0 ? Array(buffer[0..<got]) : []
        }
    }

    /// Reads until the end of an HTTP head (`\r\n\r\n`, at most `limit` bytes): the head and any bytes after it.
    public static func readHead(_ fd: Int32, limit: Int = 65536) -> (head: String, rest: [UInt8])? {
        var data: [UInt8] = []
        let end: [UInt8] = [13, 10, 13, 10]
        while data.count < limit {
            let chunk = receive(fd)
            if chunk.isEmpty { return nil }
            data += chunk
            if let at = data.firstRange(of: end) {
                return (String(decoding: data[..<at.upperBound], as: UTF8.self), Array(data[at.upperBound...]))
            }
        }
        return nil
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func localPort(_ fd: Int32) throws -> UInt16 {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let got = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard got == 0 else { throw failure("getsockname") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func failure(_ call: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "\(call) failed: \(String(cString: strerror(errno)))"])
    }
}
