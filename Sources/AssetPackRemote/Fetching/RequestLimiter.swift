import AssetPack
import AssetPackSystem

/// A counting semaphore for the fetching threads: at most `limit` holders at once; the others wait, looking
/// at their fetch's cancellation every ``SocketWait/slice`` milliseconds.
final class RequestLimiter: @unchecked Sendable {
    private let monitor = Monitor()
    /// Guarded by `monitor`.
    private var available: Int

    init(limit: Int) { available = max(1, limit) }

    /// Waits for a permit; false when `cancellation` was set first.
    func acquire(unless cancellation: ExpansionCancellation) -> Bool {
        monitor.withLock {
            while available == 0 {
                if cancellation.isCancelled { return false }
                monitor.wait(nanoseconds: UInt64(SocketWait.slice) * 1_000_000)
            }
            available -= 1
            return true
        }
    }

    /// Returns a permit.
    func release() { monitor.withLock { available += 1; monitor.broadcast() } }
}
