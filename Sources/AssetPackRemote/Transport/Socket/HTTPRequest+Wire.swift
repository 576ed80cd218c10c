import Foundation

extension HTTPRequest {
    /// The request's head as sent on the wire (RFC 9112, 3): `GET path HTTP/1.1`, `Host`, the fields of
    /// ``headerFields``, and a `User-Agent`; nil when the URL has no host.
    var wireHead: [UInt8]? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let host = url.host, !host.isEmpty else {
            return nil
        }
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { target += "?" + query }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = url.port { authority += ":\(port)" }
        var head = "GET \(target) HTTP/1.1\r\nHost: \(authority)\r\nUser-Agent: assetpack\r\n"
        for field in headerFields { head += "\(field.name): \(field.value)\r\n" }
        return Array((head + "\r\n").utf8)
    }

    /// The host to connect to (IPv6 without brackets) and the port (80 unless the URL says).
    var endpoint: (host: String, port: UInt16)? {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard let port = UInt16(exactly: url.port ?? 80) else { return nil }
        return (host, port)
    }
}
