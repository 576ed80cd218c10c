import AssetPackSystem

/// Overlaps the device's write-back of a durable expansion with the expansion itself, for the case where
/// the final flush is one `syncfs(2)` (``TreeFlush``: little else waiting for write-back). The kernel
/// starts writing dirty pages only after about 30 s or past a share of memory, so here a helper thread
/// calls `syncfs` every ``interval`` while the files are written. It decides nothing: the final flush
/// still runs and is what the record relies on. A flush is skipped while less than ``worthFlushing``
/// waits (a mostly linking upgrade: a `syncfs` would only force journal commits its links wait for).
enum EarlyWriteback {
    /// Time between two flushes of the helper thread.
    static let interval: UInt64 = 100_000_000
    /// The bytes waiting for write-back (``FileSystem/pendingWritebackBytes()``) below which a flush is skipped.
    static let worthFlushing: UInt64 = 16 << 20

    /// Runs `body` (writing `files` files into `staging`) with the helper flushing beside it when a
    /// durable expansion's final flush would be one `syncfs`; else just runs `body`.
    static func around<Result>(_ staging: Descriptor, files: Int, durable: Bool,
                               _ body: () throws(AssetPackError) -> Result) throws(AssetPackError) -> Result {
        guard durable, files > 0, TreeFlush.wholeFileSystemIsCheaper(files: files) else { return try body() }
        return try overlapping(every: interval, flush: {
            guard (FileSystem.pendingWritebackBytes() ?? .max) >= worthFlushing else { return }
            try? staging.fd.syncFileSystem(path: staging.path)
        }, body)
    }

    /// Runs `body` while a helper thread calls `flush` every `interval` nanoseconds; the helper has
    /// stopped when this returns or throws.
    static func overlapping<Result>(every interval: UInt64, flush: @escaping @Sendable () -> Void,
                                    _ body: () throws(AssetPackError) -> Result) throws(AssetPackError) -> Result {
        let state = State(interval: interval)
        return try WorkerThreads.withHelpers(1, helper: { _ in
            while state.waitUntilDue() { flush() }
        }) { () throws(AssetPackError) -> Result in
            defer { state.stop() }
            return try body()
        }
    }

    /// Whether the helper goes on, and the wait between its flushes.
    private final class State: @unchecked Sendable {
        private let monitor = Monitor()
        private let interval: UInt64
        private var stopped = false

        init(interval: UInt64) { self.interval = interval }

        /// Waits `interval` or until stopped; true when a flush is due.
        func waitUntilDue() -> Bool {
            monitor.withLock {
                if !stopped { monitor.wait(nanoseconds: interval) }
                return !stopped
            }
        }

        func stop() {
            monitor.withLock {
                stopped = true
                monitor.broadcast()
            }
        }
    }
}
