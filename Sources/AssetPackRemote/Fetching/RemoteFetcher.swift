import AssetPack
import Foundation

/// Downloads files and byte ranges over HTTP, verified and resumable: every item's bytes stream into a
/// `DeliverySink` and count only once they hash to the SHA-256 the caller expects.
///
/// - **Ranges**: an interrupted download continues from the first missing byte with `If-Range`, so a file that
///   changed on the server comes back whole instead of being spliced from two versions.
/// - **Failures**: retried with backoff under ``FetchOptions/retry``.
/// - **Mirrors**: an item's ``FetchItem/mirrors`` serve the same bytes. When a server fails (connection refused or
///   cut, timeout, 5xx, a short body), the download goes on at once from the next one, at its first missing byte;
///   one that answers 404 or 410 is left out of the fetch. A range asked from another server carries no
///   `If-Range` (entity tags are each server's own, so one server's tag means nothing to another): the splice is
///   safe only because no byte counts before the whole item hashes to its SHA-256 (or passes the sink's own check,
///   as the installer's items, checked against the signed manifest, always do). Bytes from a mirror holding
///   another version fail that check, never give a mixed file: the item starts over, whole from one server, and a
///   server whose own bytes failed it is left out. Give mirrors only to items that are checked so.
/// - **Threads**: a fetch blocks the thread that asks for it; the async methods run it on a thread of their own,
///   never on the cooperative pool. At most ``FetchOptions/maxConcurrentRequests`` requests are in flight.
/// - **Trust**: only `https://` unless ``FetchOptions/allowsPlainHTTP``.
///
/// Every error is an `AssetPackError` naming the URL (`AssetPackError/path`) and the reason.
public final class RemoteFetcher: Sendable {
    /// How requests are made and retried.
    public let options: FetchOptions
    /// The HTTP client.
    public let transport: any HTTPTransport
    private let limiter: RequestLimiter
    /// The cap on bytes per second, when ``FetchOptions/maxBytesPerSecond`` sets one.
    private let rate: ByteRate?

    /// A fetcher; without `transport`, a ``RoutingTransport`` (the socket client for plain `http://`,
    /// URLSession otherwise) with enough connections for the options.
    public init(options: FetchOptions = FetchOptions(), transport: (any HTTPTransport)? = nil) {
        self.options = options
        self.transport = transport ?? RoutingTransport(maximumConnectionsPerHost: options.maxConcurrentRequests)
        limiter = RequestLimiter(limit: options.maxConcurrentRequests)
        rate = options.maxBytesPerSecond.map(ByteRate.init(bytesPerSecond:))
    }

    /// Sends `request` through the transport; its body is read under the byte rate cap, if any.
    func send(_ request: HTTPRequest, cancellation: ExpansionCancellation) throws(AssetPackError) -> HTTPResponse {
        var response = try transport.get(request, cancellation: cancellation)
        if let rate { response.body = ThrottledBody(response.body, rate: rate, cancellation: cancellation, url: request.url) }
        return response
    }

    /// Downloads `item` into `sink` and verifies it, on the calling thread, which blocks meanwhile: call it
    /// from a thread that may block (the installer's workers, a thread of your own), or use
    /// ``fetch(_:into:progress:)`` from Swift concurrency.
    /// - Parameters:
    ///   - item: what to fetch: its URL, size and SHA-256.
    ///   - sink: where the bytes go, in order.
    ///   - progress: told of the bytes as they come; nil for none.
    ///   - cancellation: when set, the fetch ends with `cancelled` within a few milliseconds.
    /// - Returns: once every byte is in the sink and their SHA-256 is the item's.
    /// - Throws: `AssetPackError` with the URL as its path: `verification` (hash mismatch after refetching, a
    ///   file that changed on the server), `notFound` (404/410), `io` (network failures and 5xx after retries,
    ///   other HTTP statuses), `invalidArgument` (a URL or redirect that is not allowed), `cancelled`, and the
    ///   sink's own errors.
    public func fetchSynchronously(_ item: FetchItem, into sink: some DeliverySink, progress: FetchProgress? = nil,
                                   cancellation: ExpansionCancellation = ExpansionCancellation())
        throws(AssetPackError) -> FetchResult {
        for url in [item.url] + item.mirrors { try options.check(url) }
        let download = Download(item: item, sink: sink, progress: progress)
        var budget = RetryBudget(options.retry, url: item.url)
        while true {
            if download.isComplete {
                if let failure = try check(download, sink) {
                    try budget.refetch(after: failure)
                    try download.startOverAfterMismatch(failure)
                } else {
                    progress?.verified(item.length)
                    return FetchResult(item: item, etag: download.etag, url: download.servers.url,
                                       requests: budget.requests, bytesReceived: download.bodyBytes)
                }
            }
            let before = download.received
            do {
                budget.requests += 1
                try attempt(download, cancellation)
            } catch {
                try recover(from: error, download, &budget, progressed: download.received > before, cancellation)
            }
        }
    }

    /// ``fetchSynchronously(_:into:progress:cancellation:)`` from Swift concurrency: the fetch runs on a thread
    /// of its own (never on the cooperative pool), and cancelling the calling task cancels it.
    public func fetch(_ item: FetchItem, into sink: some DeliverySink,
                      progress: FetchProgress? = nil) async throws(AssetPackError) -> FetchResult {
        // The sink is used on the fetch's thread while this task waits for it, never by both at once.
        nonisolated(unsafe) let target: any DeliverySink = sink
        return try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            try self.fetchSynchronously(item, into: target, progress: progress, cancellation: cancellation)
        }
    }

    /// One request: what it answers is taken into the download as far as it goes.
    private func attempt<Sink>(_ download: Download<Sink>,
                               _ cancellation: ExpansionCancellation) throws(AttemptFailure) {
        guard !cancellation.isCancelled, limiter.acquire(unless: cancellation) else {
            throw AttemptFailure(kind: .final, error: AssetPackError(.cancelled, "cancelled", path: download.url))
        }
        defer { limiter.release() }
        let response: HTTPResponse
        do {
            response = try send(download.request(options), cancellation: cancellation)
        } catch {
            throw .transport(error)
        }
        do {
            let plan = try ResponsePlan(response, for: download)
            try plan.read(response.body, into: download)
        } catch {
            response.body.cancel()
            throw error
        }
    }

    /// Handles a failed request: the download starts over for a changed resource (bounded like a mismatch), goes
    /// on from another server or waits and tries again for a transient failure (bounded by the policy), goes on
    /// from another server for a missing file, or ends (with the bytes that did not match, when the last server
    /// lacks the file after another served other bytes).
    private func recover<Sink>(from failure: AttemptFailure, _ download: Download<Sink>, _ budget: inout RetryBudget,
                               progressed: Bool, _ cancellation: ExpansionCancellation) throws(AssetPackError) {
        switch failure.kind {
        case .final:
            guard failure.error.code == .notFound else { throw failure.error }
            guard download.leaveServerOut() else { throw download.mismatch ?? failure.error }
        case .changed:
            try budget.refetch(after: failure.error)
            try download.startOverAfterMismatch(failure.error)
        case .transient(let retryAfter):
            guard !download.serverFailed(progressed: progressed) else { return }
            try budget.wait(after: failure.error, retryAfter: retryAfter, progressed: progressed,
                            cancellation: cancellation)
        }
    }

    /// Why the complete download's bytes are not the item's (its SHA-256, then the sink's own check), or nil
    /// when they are. Errors of the sink other than `verification` are thrown.
    private func check<Sink>(_ download: Download<Sink>, _ sink: Sink) throws(AssetPackError) -> AssetPackError? {
        if let expected = download.item.sha256 {
            let digest = download.digest()
            if digest != expected { return mismatch(download, expected: expected, digest: digest) }
        }
        do {
            try sink.finish()
            return nil
        } catch where error.code == .verification {
            return changedOnServer(error, download)
        }
    }

    private func mismatch<Sink>(_ download: Download<Sink>, expected: ContentHash, digest: ContentHash) -> AssetPackError {
        changedOnServer(AssetPackError(.verification, "SHA-256 mismatch: expected \(expected), received \(digest)", path: download.url),
                        download)
    }

    /// `error`, located in the item's range, with the change of entity tag seen during the download if any.
    private func changedOnServer<Sink>(_ error: AssetPackError, _ download: Download<Sink>) -> AssetPackError {
        var error = error
        var message = error.message
        if let range = download.item.range { message = "bytes \(range.lowerBound)..<\(range.upperBound): " + message }
        if let change = download.etagChange {
            message += "; the file changed on the server during the download (ETag \(change.old), now \(change.new))"
        }
        error.message = message
        error.path = download.url
        return error
    }
}

