import AssetPack
import Foundation

/// The one thing the fetcher needs from HTTP: a `GET`, optionally of a byte range, whose answer arrives as a
/// status, headers and a body read chunk by chunk.
///
/// Errors are `AssetPackError`s, classified by code:
/// - `AssetPackError/Code/io`: worth retrying (connection refused or dropped, timeout, reader too slow);
/// - `AssetPackError/Code/cancelled`: the task was cancelled;
/// - anything else (`invalidArgument` for a URL or redirect refused, `verification` for a TLS peer that is not
///   trusted) ends the fetch at once.
/// An HTTP error status is not an error here: it is a response, which the fetcher judges.
///
/// Calls block the calling thread until the bytes are there; the fetcher never makes them from the cooperative pool.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns once the response's head has arrived (its body still streaming), or throws
    /// when no head came within `request.timeout`. Setting `cancellation` ends this wait, and every wait of the
    /// response's body, with `AssetPackError/Code/cancelled` within a few milliseconds.
    func get(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse
}

/// The body of a response, read in order. Memory stays bounded: an implementation buffers at most a fixed
/// amount ahead of the reader (and fails with a retryable `AssetPackError/Code/io` error past it).
public protocol HTTPBody: AnyObject, Sendable {
    /// The next bytes, or nil at the end of a complete body; blocks until they come. Throws when the body ends
    /// early (connection lost), when no bytes came within the request's timeout, or when the request's
    /// cancellation was set.
    func next() throws(AssetPackError) -> [UInt8]?
    /// Stops the transfer; unread bytes are dropped. Later calls of ``next()`` return nil.
    func cancel()
}

/// A `GET` request.
public struct HTTPRequest: Sendable, Equatable {
    /// What to fetch.
    public var url: URL
    /// The bytes wanted (`Range: bytes=first-last`), or nil for the whole resource. Never empty.
    public var range: Range<UInt64>?
    /// A strong entity tag sent as `If-Range`: the server answers the range only if the resource still has
    /// this tag, and the whole resource (200) otherwise. Only sent with a range.
    public var ifRange: String?
    /// How long to wait for the response's head, and then for each next bytes of its body.
    public var timeout: Duration
    /// Whether a redirect to a plain `http://` URL may be followed.
    public var allowsPlainHTTP: Bool
    /// On Apple platforms, whether the request may use an expensive or a constrained (Low Data Mode) network
    /// (``FetchOptions/allowsExpensiveNetworkAccess``, ``FetchOptions/allowsConstrainedNetworkAccess``).
    public var allowsExpensiveNetworkAccess = true
    public var allowsConstrainedNetworkAccess = true
    /// Whether the whole resource may come gzip-compressed (`Accept-Encoding: gzip`), for a small resource read
    /// whole, such as a manifest; never with a range, which refers to the bytes as stored.
    public var acceptsGzip = false

    /// A request for `url`.
    public init(url: URL, range: Range<UInt64>? = nil, ifRange: String? = nil, timeout: Duration = .seconds(30),
                allowsPlainHTTP: Bool = false) {
        self.url = url
        self.range = range
        self.ifRange = ifRange
        self.timeout = timeout
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    /// The header fields this request sends besides the transport's own: `Range` and `If-Range` when set,
    /// and `Accept-Encoding: identity`, since ranges and hashes refer to the bytes as stored (`gzip` for a whole
    /// resource that ``acceptsGzip``).
    public var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [("Accept-Encoding", acceptsGzip && range == nil ? "gzip" : "identity")]
        if let range, !range.isEmpty {
            fields.append(("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)"))
            if let ifRange { fields.append(("If-Range", ifRange)) }
        }
        return fields
    }
}

/// The answer to an ``HTTPRequest``: status and headers, with the body still to be read.
public struct HTTPResponse: Sendable {
    /// The HTTP status code (200, 206, 404, …).
    public var status: Int
    /// The header fields, names in lower case.
    public var headers: [String: String]
    /// The body, read in order; cancel it when it is not needed to the end.
    public var body: any HTTPBody

    /// A response; header names are lowercased.
    public init(status: Int, headers: [String: String], body: any HTTPBody) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, _ in first }
        self.body = body
    }

    /// True when the body is gzip-compressed (`Content-Encoding: gzip` or `x-gzip`).
    public var isGzipped: Bool {
        ["gzip", "x-gzip"].contains(headers["content-encoding"]?.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The `ETag` header, as sent (quotes and any `W/` included).
    public var etag: String? { headers["etag"] }

    /// The `Content-Length` header, when present and a number.
    public var contentLength: UInt64? { headers["content-length"].flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) } }

    /// The `Content-Range` header of a 206, parsed; nil when absent or malformed.
    public var contentRange: ContentRange? { headers["content-range"].flatMap(ContentRange.init(header:)) }

    /// The `Retry-After` header in seconds (the delta-seconds form only).
    public var retryAfter: Duration? {
        headers["retry-after"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds(max(0, $0)) }
    }
}

/// Whether an entity tag is strong (not `W/"…"`): only a strong tag may be sent in `If-Range` (RFC 9110, 13.1.5).
public func isStrongETag(_ tag: String) -> Bool {
    tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count >= 2
}
