import AssetPack
import AssetPackSystem
import Foundation

/// ``HTTPTransport`` for plain `http://` on its own HTTP/1.1 client over sockets, without URLSession.
///
/// It exists because URLSession on Linux hands a body over in small `Data` pieces through an `OperationQueue`,
/// several times the CPU of `curl`; this client receives chunks of up to ``chunkSize`` bytes straight from the
/// socket and never buffers ahead of its reader, so memory is one chunk per response. It keeps connections
/// alive, follows redirects to `http://` targets when the request allows plain HTTP, and hands `https://`
/// targets to the `secure` transport. It never speaks to a proxy: use ``RoutingTransport`` (the default).
public final class SocketHTTPTransport: HTTPTransport, @unchecked Sendable {
    /// Most idle connections kept per host.
    public let maximumConnectionsPerHost: Int
    /// Most bytes one ``HTTPBody/next()`` returns.
    public let chunkSize: Int
    /// Most bytes of a response head.
    public let maximumHeadBytes: Int
    /// Most redirects followed for one request.
    public let maximumRedirects: Int
    let pool: ConnectionPool
    private let secure: (any HTTPTransport)?

    /// A client with its own connection pool.
    /// - Parameters:
    ///   - maximumConnectionsPerHost: idle connections kept per host (the fetcher's concurrent requests).
    ///   - chunkSize: the most bytes a body read returns (default 256 KiB, at least 4 KiB).
    ///   - maximumHeadBytes: a longer response head is an error (default 64 KiB).
    ///   - maximumRedirects: redirects followed per request (default 5).
    ///   - secure: what fetches an `https://` redirect target; without it, such a redirect is refused.
    public init(maximumConnectionsPerHost: Int = 8, chunkSize: Int = 256 << 10, maximumHeadBytes: Int = 64 << 10,
                maximumRedirects: Int = 5, secure: (any HTTPTransport)? = nil) {
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        self.chunkSize = max(chunkSize, 4 << 10)
        self.maximumHeadBytes = max(maximumHeadBytes, 1 << 10)
        self.maximumRedirects = max(0, maximumRedirects)
        self.secure = secure
        pool = ConnectionPool(limit: self.maximumConnectionsPerHost)
    }

    /// Connections opened so far (a kept-alive connection serves several requests).
    public var connectionsOpened: Int { pool.connectionsOpened }

    public func get(_ request: HTTPRequest,
                    cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        var request = request
        var redirects = 0
        while true {
            let response = try exchange(request, cancellation)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] else {
                return response
            }
            response.body.cancel()
            guard redirects < maximumRedirects else {
                throw AssetPackError(.network, "more than \(maximumRedirects) redirects", path: request.url.absoluteString)
            }
            redirects += 1
            let target = try redirectTarget(location, from: request)
            request.url = target
            if target.scheme?.lowercased() == "https", let secure {
                return try secure.get(request, cancellation: cancellation)
            }
        }
    }

    /// Where a redirect leads, when this client may follow it (`http://`, allowed by the request).
    private func redirectTarget(_ location: String, from request: HTTPRequest) throws(AssetPackError) -> URL {
        let from = request.url.absoluteString
        guard let target = URL(string: location, relativeTo: request.url)?.absoluteURL, target.host != nil else {
            throw AssetPackError(.invalidArgument, "redirected to \(location), which is not a URL", path: from)
        }
        switch target.scheme?.lowercased() {
        case "https" where secure != nil:
            return target
        case "http" where request.allowsPlainHTTP:
            return target
        case "http":
            throw AssetPackError(.invalidArgument, "redirected to \(target.absoluteString), which is plain HTTP, not allowed", path: from)
        default:
            throw AssetPackError(.invalidArgument, "redirected to \(target.absoluteString), which this client cannot fetch", path: from)
        }
    }

    /// One request and its response's head, on a kept-alive connection when one is idle. A kept-alive
    /// connection the server closed before answering is replaced by a new one, once.
    private func exchange(_ request: HTTPRequest,
                          _ cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        guard request.url.scheme?.lowercased() == "http", let endpoint = request.endpoint, let head = request.wireHead else {
            throw AssetPackError(.invalidArgument, "not an http:// URL this client can fetch", path: request.url.absoluteString)
        }
        if let idle = pool.checkOut(HTTPConnection.endpoint(endpoint.host, endpoint.port)) {
            do {
                return try send(head, request, on: idle, cancellation)
            } catch where error.code == .io && !error.message.hasPrefix("timed out") {
                // The server closed the idle connection as the request left (no byte of a response came, or
                // the send failed): a GET is safe to send again, on a new connection.
            }
        }
        let wait = SocketWait(request.url, timeout: request.timeout, for: "connection", cancellation: cancellation)
        let connection = try HTTPConnection.open(host: endpoint.host, port: endpoint.port, wait: wait)
        pool.noteOpened()
        return try send(head, request, on: connection, cancellation)
    }

    /// Where a connection closed before any byte of a response ended.
    private static let beforeResponse = "before its response"

    private func send(_ head: [UInt8], _ request: HTTPRequest, on connection: HTTPConnection,
                      _ cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        let wait = SocketWait(request.url, timeout: request.timeout, for: "response", cancellation: cancellation)
        connection.requests += 1
        try connection.send(head, wait: wait)
        let parsed = try readHead(connection, wait)
        let framing: ResponseHead.Framing
        switch parsed.framing {
        case .success(let value): framing = value
        case .failure(let error): throw SocketFailure.protocolError(error.reason, url: request.url)
        }
        let body = SocketBody(connection, framing: framing, keepsAlive: parsed.keepsAlive, request: request,
                              cancellation: cancellation, chunkSize: chunkSize, pool: pool)
        return HTTPResponse(status: parsed.status, headers: parsed.headers, body: body)
    }

    /// Reads heads until one that is not informational (1xx).
    private func readHead(_ connection: HTTPConnection, _ wait: SocketWait) throws(AssetPackError) -> ResponseHead {
        let tooLong = SocketFailure.protocolError("a response head longer than \(maximumHeadBytes) bytes", url: wait.url)
        while true {
            var lines: [ArraySlice<UInt8>] = []
            var bytes = 0
            while true {
                let line = try connection.readLine(limit: maximumHeadBytes - bytes, tooLong: tooLong,
                                                   what: "the response head", wait: wait)
                guard let line else {
                    throw SocketFailure.closed(lines.isEmpty ? Self.beforeResponse : "in the middle of the response head", url: wait.url)
                }
                bytes += line.count + 2
                guard bytes <= maximumHeadBytes else { throw tooLong }
                if line.isEmpty { break }
                lines.append(line)
            }
            switch ResponseHead.parse(lines) {
            case .success(let head) where (100..<200).contains(head.status) && head.status != 101: continue
            case .success(let head): return head
            case .failure(let error): throw SocketFailure.protocolError(error.reason, url: wait.url)
            }
        }
    }
}
