import AssetPackSystem
import AssetPack
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession task's answer as the reader sees it: the head, then the body's chunks, with a deadline on
/// every wait. URLSession's delegate pushes (``receive(head:)``, ``receive(_:)``, ``complete(_:)``) on its
/// queue; the reader pulls (``head()``, ``next()``) from any task.
///
/// Memory is bounded by ``limit``: URLSession on Linux cannot pause a transfer (its `suspend()` drops and
/// later restarts the connection), so when the reader falls more than `limit` bytes behind, the transfer is
/// cancelled and the body ends, after the bytes already buffered, with a retryable error; the fetcher resumes
/// with a range request from there.
final class ResponseStream: HTTPBody, @unchecked Sendable {
    let url: URL
    let timeout: Duration
    let limit: Int
    private let lock = Monitor()
    private var task: URLSessionTask?
    private var headValue: HTTPURLResponse?
    private var chunks: [Data] = []
    private var buffered = 0
    private var ending: Result<Void, AssetPackError>?
    private var cancelled = false
    private var waiter: CheckedContinuation<Void, Never>?
    /// A redirect the delegate refused (plain HTTP), for the error message.
    var refusedRedirect: URL? {
        get { lock.withLock { refused } }
        set { lock.withLock { refused = newValue } }
    }
    private var refused: URL?

    init(url: URL, timeout: Duration, limit: Int) {
        self.url = url
        self.timeout = timeout
        self.limit = limit
    }

    func attach(_ task: URLSessionTask) { lock.withLock { self.task = task } }

    // MARK: Producer side (URLSession's delegate queue)

    func receive(head: HTTPURLResponse) {
        lock.withLock { headValue = head }
        wake()
    }

    func receive(_ data: Data) {
        let overflow: URLSessionTask? = lock.withLock {
            guard ending == nil, !cancelled else { return nil }
            chunks.append(data)
            buffered += data.count
            guard buffered > limit else { return nil }
            let reason = "the reader fell more than \(limit) bytes behind the network; transfer stopped to bound memory"
            ending = .failure(AssetPackError(.io, reason, path: url.absoluteString))
            return task
        }
        overflow?.cancel()
        wake()
    }

    func complete(_ error: Error?) {
        lock.withLock {
            if ending == nil { ending = error.map { .failure(TransportErrors.map($0, url: url)) } ?? .success(()) }
        }
        wake()
    }

    private func wake() {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume()
    }

    // MARK: Consumer side

    /// Waits for the response's head.
    func head() async throws(AssetPackError) -> HTTPURLResponse {
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
            try await wait(until: deadline, for: "response", head: true)
        }
    }

    func next() async throws(AssetPackError) -> [UInt8]? {
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
            try await wait(until: deadline, for: "further bytes of the body", head: false)
        }
    }

    func cancel() {
        let running: URLSessionTask? = lock.withLock {
            cancelled = true
            chunks.removeAll()
            buffered = 0
            return ending == nil ? task : nil
        }
        running?.cancel()
        wake()
    }

    deinit { if ending == nil { task?.cancel() } }

    /// Sleeps until the producer has news (the head, when `head`; otherwise bytes), the deadline passes (then
    /// throws a timeout and stops the task), or the current task is cancelled (then throws `cancelled`).
    private func wait(until deadline: ContinuousClock.Instant, for what: String, head: Bool) async throws(AssetPackError) {
        if Task.isCancelled {
            cancel()
            throw AssetPackError(.cancelled, "cancelled", path: url.absoluteString)
        }
        if ContinuousClock.now >= deadline {
            cancel()
            throw AssetPackError(.io, "timed out: no \(what) within \(TransportErrors.seconds(timeout))", path: url.absoluteString)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if park(continuation, head: head) { wake(at: deadline) } else { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }

    /// Leaves `continuation` for the producer to resume, unless there is news already (then returns false).
    private func park(_ continuation: CheckedContinuation<Void, Never>, head: Bool) -> Bool {
        lock.withLock {
            let news = head ? headValue != nil : !chunks.isEmpty || cancelled
            guard !news, ending == nil, !Task.isCancelled else { return false }
            waiter = continuation
            return true
        }
    }

    /// Resumes the waiter, if any, just after `deadline`, so that it sees the deadline passed.
    private func wake(at deadline: ContinuousClock.Instant) {
        let delay = (deadline - ContinuousClock.now).components
        let nanoseconds = max(0, delay.seconds * 1_000_000_000 + delay.attoseconds / 1_000_000_000) + 1_000_000
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            self?.wake()
        }
    }
}
