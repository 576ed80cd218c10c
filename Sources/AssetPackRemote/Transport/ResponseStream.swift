import AssetPackSystem
import AssetPack
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession task's answer as the reader sees it: URLSession's delegate pushes the head and the body's
/// chunks on its queue, the reader pulls them on its own thread with a deadline on every wait. URLSession on
/// Linux cannot pause a transfer, so a reader more than ``limit`` bytes behind ends the body with a retryable
/// error, and the fetcher resumes with a range request.
final class ResponseStream: HTTPBody, @unchecked Sendable {
    let url: URL
    let timeout: Duration
    let limit: Int
    private let cancellation: ExpansionCancellation
    private let lock = Monitor()
    private var task: URLSessionTask?
    private var headValue: HTTPURLResponse?
    private var chunks: [Data] = []
    private var buffered = 0
    private var ending: Result<Void, AssetPackError>?
    private var cancelled = false
    /// A redirect the delegate refused (plain HTTP), for the error message.
    var refusedRedirect: URL? {
        get { lock.withLock { refused } }
        set { lock.withLock { refused = newValue } }
    }
    private var refused: URL?

    init(url: URL, timeout: Duration, limit: Int, cancellation: ExpansionCancellation) {
        self.url = url
        self.timeout = timeout
        self.limit = limit
        self.cancellation = cancellation
    }

    func attach(_ task: URLSessionTask) { lock.withLock { self.task = task } }

    // MARK: Producer side (URLSession's delegate queue)

    // Each change wakes the reader waiting in ``wait(until:for:head:)``.

    func receive(head: HTTPURLResponse) {
        lock.withLock { headValue = head; lock.broadcast() }
    }

    func receive(_ data: Data) {
        let overflow: URLSessionTask? = lock.withLock {
            guard ending == nil, !cancelled else { return nil }
            defer { lock.broadcast() }
            chunks.append(data)
            buffered += data.count
            guard buffered > limit else { return nil }
            let reason = "the reader fell more than \(limit) bytes behind the network; transfer stopped to bound memory"
            ending = .failure(AssetPackError(.io, reason, path: url.absoluteString))
            return task
        }
        overflow?.cancel()
    }

    func complete(_ error: Error?) {
        lock.withLock {
            if ending == nil { ending = error.map { .failure(TransportErrors.map($0, url: url)) } ?? .success(()) }
            lock.broadcast()
        }
    }

    // MARK: Consumer side

    /// Waits for the response's head.
    func head() throws(AssetPackError) -> HTTPURLResponse {
        let deadline = ContinuousClock.now + timeout
        while true {
            let state: (HTTPURLResponse?, Result<Void, AssetPackError>?) = lock.withLock { (headValue, ending) }
            if let head = state.0 { return head }
            if case .failure(let error)? = state.1 { throw error }
            if state.1 != nil {
                if let refused = refusedRedirect {
                    let reason = "redirected to \(refused.absoluteString), which is plain HTTP, not allowed"
                    throw AssetPackError(.invalidArgument, reason, path: url.absoluteString)
                }
                throw AssetPackError(.io, "the connection ended without a response", path: url.absoluteString)
            }
            try wait(until: deadline, for: "response", head: true)
        }
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let step: Result<[UInt8]?, AssetPackError>? = lock.withLock {
                if cancelled { return .success(nil) }
                if !chunks.isEmpty {
                    let chunk = chunks.removeFirst()
                    buffered -= chunk.count
                    return .success([UInt8](chunk))
                }
                switch ending {
                case .success?: return .success(nil)
                case .failure(let error)?: return .failure(error)
                case nil: return nil
                }
            }
            if let step { return try step.get() }
            try wait(until: deadline, for: "further bytes of the body", head: false)
        }
    }

    func cancel() {
        let running: URLSessionTask? = lock.withLock {
            cancelled = true
            chunks.removeAll()
            buffered = 0
            lock.broadcast()
            return ending == nil ? task : nil
        }
        running?.cancel()
    }

    deinit { if ending == nil { task?.cancel() } }

    /// Sleeps until the producer has news (the head, when `head`; otherwise bytes), the deadline passes (then
    /// throws a timeout and stops the task), or the fetch is cancelled (then throws `cancelled`); the
    /// cancellation is looked at every ``SocketWait/slice`` milliseconds.
    private func wait(until deadline: ContinuousClock.Instant, for what: String, head: Bool) throws(AssetPackError) {
        if cancellation.isCancelled {
            cancel()
            throw AssetPackError(.cancelled, "cancelled", path: url.absoluteString)
        }
        let left = deadline - ContinuousClock.now
        if left <= .zero {
            cancel()
            throw TransportErrors.timedOut(what, within: timeout, url: url)
        }
        let nanoseconds = UInt64(left.components.seconds) * 1_000_000_000
            + UInt64(left.components.attoseconds / 1_000_000_000) + 1
        lock.withLock {
            let news = head ? headValue != nil : !chunks.isEmpty || cancelled
            guard !news, ending == nil else { return }
            lock.wait(nanoseconds: min(nanoseconds, UInt64(SocketWait.slice) * 1_000_000))
        }
    }
}
