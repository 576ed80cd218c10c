/// A counting semaphore for async code: at most `limit` holders at once, the others wait in order.
actor RequestLimiter {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = max(1, limit) }

    /// Waits for a permit.
    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Returns a permit, handing it to the longest waiter if any.
    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
