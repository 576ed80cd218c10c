import AssetPack
import AssetPackSystem
import Foundation

/// The default ``HTTPTransport``: plain `http://` without a proxy goes to the ``SocketHTTPTransport``
/// (several times cheaper per byte than URLSession on Linux), everything else — `https://`, a proxy from the
/// environment (``ProxySettings``), the `https://` target of a redirect — to a ``URLSessionTransport``, made
/// when first needed (creating a session costs start-up time an `http://` install never pays).
public final class RoutingTransport: HTTPTransport, @unchecked Sendable {
    /// The client for plain HTTP.
    public let sockets: SocketHTTPTransport
    /// The proxy variables read when the transport was made.
    public let proxySettings: ProxySettings
    private let session: LazySession

    /// A router over the two transports.
    /// - Parameters:
    ///   - maximumConnectionsPerHost: how many connections each transport keeps open to one host.
    ///   - environment: where the proxy variables are read (the process's environment by default).
    public init(maximumConnectionsPerHost: Int = 8, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let session = LazySession(maximumConnectionsPerHost: maximumConnectionsPerHost)
        self.session = session
        proxySettings = ProxySettings(environment: environment)
        sockets = SocketHTTPTransport(maximumConnectionsPerHost: maximumConnectionsPerHost, secure: session)
    }

    /// Whether `request` goes to the socket client.
    public func usesSockets(_ request: HTTPRequest) -> Bool {
        guard request.url.scheme?.lowercased() == "http", let host = request.url.host else { return false }
        return !proxySettings.isProxied(host)
    }

    public func get(_ request: HTTPRequest,
                    cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        let transport: any HTTPTransport = usesSockets(request) ? sockets : session
        return try transport.get(request, cancellation: cancellation)
    }
}

/// A ``URLSessionTransport`` made on first use.
private final class LazySession: HTTPTransport, @unchecked Sendable {
    private let maximumConnectionsPerHost: Int
    private let lock = Monitor()
    private var made: URLSessionTransport?

    init(maximumConnectionsPerHost: Int) { self.maximumConnectionsPerHost = maximumConnectionsPerHost }

    var transport: URLSessionTransport {
        lock.withLock {
            if let made { return made }
            let transport = URLSessionTransport(maximumConnectionsPerHost: maximumConnectionsPerHost)
            made = transport
            return transport
        }
    }

    func get(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        try transport.get(request, cancellation: cancellation)
    }
}
