import AssetPack
import AssetPackSystem
import Foundation

/// A cap on the bytes per second one ``RemoteFetcher`` receives, shared by all its requests
/// (``FetchOptions/maxBytesPerSecond``): each chunk read books its share of time, and its reader waits until the
/// time booked so far has passed, so N bytes take at least N / rate seconds however many connections carry them.
/// The socket's buffers then fill and TCP slows the sender, as with curl's `--limit-rate`.
final class ByteRate: @unchecked Sendable {
    private let bytesPerSecond: Double
    private let monitor = Monitor()
    /// The clock's time when every byte booked so far is paid for (guarded by `monitor`).
    private var paidUntil = ContinuousClock.now

    /// A budget of `bytesPerSecond` (at least 1).
    init(bytesPerSecond: UInt64) { self.bytesPerSecond = Double(max(bytesPerSecond, 1)) }

    /// Books `count` bytes just received; returns when the budget has paid for them.
    func spend(_ count: Int, cancellation: ExpansionCancellation, url: URL) throws(AssetPackError) {
        let seconds = Double(count) / bytesPerSecond
        let until = monitor.withLock {
            paidUntil = max(paidUntil, .now) + .nanoseconds(Int64(seconds * 1e9))
            return paidUntil
        }
        try Self.pause(until: until, cancellation: cancellation, url: url)
    }

    /// Returns at `end`, or throws `cancelled` within 20 ms of `cancellation` being set.
    static func pause(until end: ContinuousClock.Instant, cancellation: ExpansionCancellation, url: URL) throws(AssetPackError) {
        while true {
            if cancellation.isCancelled { throw AssetPackError(.cancelled, "cancelled", path: url.absoluteString) }
            let left = end - .now
            guard left > .zero else { return }
            Thread.sleep(forTimeInterval: min(0.02, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18))
        }
    }
}

/// A response body read under a ``ByteRate``.
final class ThrottledBody: HTTPBody, @unchecked Sendable {
    private let body: any HTTPBody
    private let rate: ByteRate
    private let cancellation: ExpansionCancellation
    private let url: URL

    /// `body`, each chunk paid for from `rate` before it is handed on.
    init(_ body: any HTTPBody, rate: ByteRate, cancellation: ExpansionCancellation, url: URL) {
        (self.body, self.rate, self.cancellation, self.url) = (body, rate, cancellation, url)
    }

    func next() throws(AssetPackError) -> [UInt8]? {
        guard let chunk = try body.next() else { return nil }
        try rate.spend(chunk.count, cancellation: cancellation, url: url)
        return chunk
    }

    func cancel() { body.cancel() }
}
