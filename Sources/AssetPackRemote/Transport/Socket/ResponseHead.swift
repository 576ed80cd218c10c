/// The head of an HTTP/1.1 response (RFC 9112, section 4 and 5): status line and header fields, parsed from
/// bytes, and what they say about the body's framing and the connection.
struct ResponseHead: Equatable {
    /// How the body is delimited (RFC 9112, 6.3).
    enum Framing: Equatable {
        /// No body (1xx, 204, 304, or `Content-Length: 0`).
        case empty
        /// Exactly this many bytes.
        case length(UInt64)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Until the server closes the connection (HTTP/1.0 style).
        case untilClose
    }

    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    var minorVersion: Int
    /// The status code.
    var status: Int
    /// The fields, names lowercased; a repeated name's values joined with `, `.
    var headers: [String: String]

    /// Parses a head: the status line and field lines, each ended by CRLF (or LF), without the empty line
    /// that ends the head. A ``HeadError`` with the reason when the bytes are not an HTTP/1.x response head.
    static func parse(_ lines: [ArraySlice<UInt8>]) -> Result<ResponseHead, HeadError> {
        guard let first = lines.first else { return .failure(HeadError("no status line")) }
        guard let (minor, status) = statusLine(first) else {
            return .failure(HeadError("bad status line \"\(printable(first))\""))
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line.first != 0x20, line.first != 0x09,
                  !line[..<colon].contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
                return .failure(HeadError("bad header line \"\(printable(line))\""))
            }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return .success(ResponseHead(minorVersion: minor, status: status, headers: headers))
    }

    /// How the body of the answer to a `GET` is delimited; a failure for contradictory or invalid lengths.
    var framing: Result<Framing, HeadError> {
        if (100..<200).contains(status) || status == 204 || status == 304 { return .success(.empty) }
        if let coding = headers["transfer-encoding"] {
            let last = coding.split(separator: ",").last.map { String($0).trimmingWhitespace.lowercased() }
            guard last == "chunked" else { return .failure(HeadError("transfer coding \"\(coding)\" not supported")) }
            return .success(.chunked)
        }
        if let text = headers["content-length"] {
            let values = Set(text.split(separator: ",").map { String($0).trimmingWhitespace })
            guard values.count == 1, let value = values.first, !value.isEmpty,
                  value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = UInt64(value) else {
                return .failure(HeadError("bad Content-Length \"\(text)\""))
            }
            return .success(length == 0 ? .empty : .length(length))
        }
        return .success(.untilClose)
    }

    /// Whether the connection may carry another request after this response's body (RFC 9112, 9.3).
    var keepsAlive: Bool {
        let tokens = (headers["connection"] ?? "").lowercased().split(separator: ",").map { String($0).trimmingWhitespace }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    /// `HTTP/1.x NNN reason`: the minor version and the status.
    private static func statusLine(_ line: ArraySlice<UInt8>) -> (Int, Int)? {
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, line.starts(with: prefix) else { return nil }
        let rest = Array(line.dropFirst(prefix.count))
        guard rest[0] >= 0x30, rest[0] <= 0x39, rest[1] == 0x20,
              rest[2...4].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), rest.count == 5 || rest[5] == 0x20 else { return nil }
        let status = rest[2...4].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard status >= 100 else { return nil }
        return (Int(rest[0] - 0x30), status)
    }

    /// At most 80 bytes of `line`, for messages.
    private static func printable(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line.prefix(80).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    }
}

/// Why a response head or its framing is not valid HTTP/1.1.
struct HeadError: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingWhitespace: String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
              let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
