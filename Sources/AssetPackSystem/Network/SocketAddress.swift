/// An address a ``StreamSocket`` connects to: a `sockaddr` (IPv4 or IPv6) as `getaddrinfo(3)` gives it.
package struct SocketAddress: Sendable, Hashable {
    /// `AF_INET` or `AF_INET6`.
    package let family: Int32
    /// The `sockaddr` bytes.
    package let bytes: [UInt8]

    /// The addresses of `host` (a name, or an IPv4 or IPv6 address without brackets) at `port`, in the order
    /// the resolver prefers (`getaddrinfo(3)`, TCP, `AI_ADDRCONFIG`). A name is looked up in the system's
    /// resolver, which blocks the calling thread meanwhile.
    /// - Throws: ``AddressLookupError`` when the name is not known, or has no address.
    package static func lookUp(host: String, port: UInt16) throws(AddressLookupError) -> [SocketAddress] {
        var found: [SocketAddress] = []
        let status = system_getaddrinfo(host, String(port)) { family, address, length in
            guard family == _AF_INET || family == _AF_INET6 else { return }
            found.append(SocketAddress(family: family, bytes: Array(UnsafeRawBufferPointer(start: address, count: Int(length)))))
        }
        if status != 0 { throw AddressLookupError(host: host, reason: system_gaiStrerror(status)) }
        if found.isEmpty { throw AddressLookupError(host: host, reason: "no IPv4 or IPv6 address") }
        return found
    }
}

/// A host name `getaddrinfo(3)` could not turn into an address.
package struct AddressLookupError: Error, Sendable, Equatable {
    /// The name looked up.
    package var host: String
    /// The resolver's reason (`gai_strerror(3)`), e.g. `Name or service not known`.
    package var reason: String
}
