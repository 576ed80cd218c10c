import AssetPackSystem
import AssetPack
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` over Foundation's `URLSession` (FoundationNetworking, on libcurl, on Linux): what apps use
/// on Apple platforms, with the system's proxy settings and TLS trust.
///
/// One session serves every request, nothing cached; each body streams into a buffer of at most
/// ``bufferLimit`` bytes, so memory is bounded by the responses in flight times that limit.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    /// Most bytes buffered ahead of the reader of one response.
    public let bufferLimit: Int
    /// Most connections the session opens to one host.
    public let maximumConnectionsPerHost: Int
    private let session: URLSession
    private let delegate: SessionDelegate

    /// A transport with its own ephemeral session.
    /// - Parameters:
    ///   - maximumConnectionsPerHost: at least the fetcher's concurrent requests, so none waits in URLSession.
    ///   - bufferLimit: bytes one response may buffer ahead of its reader (default 8 MiB).
    public init(maximumConnectionsPerHost: Int = 8, bufferLimit: Int = 8 << 20) {
        self.bufferLimit = max(bufferLimit, 64 << 10)
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = self.maximumConnectionsPerHost
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "assetpack.URLSessionTransport"
        delegate = SessionDelegate()
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    public func get(_ request: HTTPRequest,
                    cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        let stream = ResponseStream(url: request.url, timeout: request.timeout, limit: bufferLimit,
                                    cancellation: cancellation)
        let task = session.dataTask(with: urlRequest(for: request))
        stream.attach(task)
        delegate.register(stream, allowsPlainHTTP: request.allowsPlainHTTP, for: task)
        task.resume()
        let head: HTTPURLResponse
        do {
            head = try stream.head()
        } catch {
            stream.cancel()
            throw error
        }
        var headers: [String: String] = [:]
        for (name, value) in head.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return HTTPResponse(status: head.statusCode, headers: headers, body: stream)
    }

    private func urlRequest(for request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData)
        urlRequest.httpMethod = "GET"
        // URLSession's own timer (on Linux reset by each received byte) backs up the stream's deadlines.
        urlRequest.timeoutInterval = max(1, Double(request.timeout.components.seconds) * 2 + 1)
        for field in request.headerFields { urlRequest.setValue(field.value, forHTTPHeaderField: field.name) }
        #if canImport(Darwin)
        // Apple's URLSession asks the system about the network; swift-corelibs-foundation has no such fields.
        urlRequest.allowsExpensiveNetworkAccess = request.allowsExpensiveNetworkAccess
        urlRequest.allowsConstrainedNetworkAccess = request.allowsConstrainedNetworkAccess
        #endif
        return urlRequest
    }
}

/// The session's delegate: routes each task's events to its ``ResponseStream``, and refuses redirects to plain
/// HTTP unless the request allows them.
private final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        let stream: ResponseStream
        let allowsPlainHTTP: Bool
    }
    private let lock = Monitor()
    private var entries: [Int: Entry] = [:]

    func register(_ stream: ResponseStream, allowsPlainHTTP: Bool, for task: URLSessionTask) {
        lock.withLock { entries[task.taskIdentifier] = Entry(stream: stream, allowsPlainHTTP: allowsPlainHTTP) }
    }

    private func entry(_ task: URLSessionTask) -> Entry? { lock.withLock { entries[task.taskIdentifier] } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse { entry(dataTask)?.stream.receive(head: http) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        entry(dataTask)?.stream.receive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let entry = lock.withLock { entries.removeValue(forKey: task.taskIdentifier) }
        entry?.stream.complete(error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let entry = entry(task), let target = request.url else { return completionHandler(nil) }
        let scheme = target.scheme?.lowercased()
        if scheme == "https" || (scheme == "http" && entry.allowsPlainHTTP) { return completionHandler(request) }
        entry.stream.refusedRedirect = target
        completionHandler(nil)
    }
}
