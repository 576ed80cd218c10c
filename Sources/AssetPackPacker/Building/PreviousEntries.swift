import AssetPack
import AssetPackSystem

/// The entries of the previous bundle's manifest, for an incremental build: read on a thread of their own
/// (`BundleManifest.visitEntries`) and handed over in path order as the build's walk asks for them, so the
/// two lists are merged side by side and at most a few thousand old entries are held, whatever the tree.
final class PreviousEntries: @unchecked Sendable {
    /// Entries read ahead of the build, at most this many.
    private static let readAhead = 4096

    private let bundle: String
    private let monitor = Monitor()
    // Guarded by `monitor`:
    private var queue: [BundleManifest.Entry] = []
    private var head = 0
    private var started = false
    private var ended = false
    private var stopped = false

    private init(bundle: String) { self.bundle = bundle }

    /// Runs `body` with the entries of the bundle folder `bundle` (none when nil) read beside it.
    static func reading<Result>(
        _ bundle: String?, _ body: (PreviousEntries?) throws(AssetPackError) -> Result
    ) throws(AssetPackError) -> Result {
        guard let bundle else { return try body(nil) }
        let entries = PreviousEntries(bundle: bundle)
        return try WorkerThreads.withHelpers(1, helper: { _ in entries.read() }) { () throws(AssetPackError) -> Result in
            defer { entries.stop() }
            return try body(entries)
        }
    }

    /// The previous entry at `path`, nil when there is none; each call's path must follow the last one's.
    func entry(at path: String) -> BundleManifest.Entry? {
        monitor.withLock {
            while true {
                while head < queue.count, Memory.bytesPrecede(queue[head].path, path) { head += 1 }
                if head < queue.count { return Memory.sameBytes(queue[head].path, path) ? queue[head] : nil }
                if ended { return nil }
                monitor.broadcast()
                if started { monitor.wait() } else { noteNeverStarted() }
            }
        }
    }

    /// Under the lock: waits a second for the reading thread, and ends the entries when it did not start
    /// (the system refused a thread): the build then reuses nothing.
    private func noteNeverStarted() {
        monitor.wait(nanoseconds: 1_000_000_000)
        if !started { ended = true }
    }

    /// The reading thread: hands every entry over, in order; one out of order (a manifest read twice)
    /// ends the entries there.
    private func read() {
        monitor.withLock { started = true }
        var last: String?
        _ = try? BundleManifest.visitEntries(in: DirectorySource(root: bundle)) { (entry) throws(AssetPackError) in
            guard last.map({ Memory.bytesPrecede($0, entry.path) }) ?? true else {
                throw AssetPackError(.manifest, "out of order")
            }
            last = entry.path
            try monitor.withLock { () throws(AssetPackError) in
                while queue.count - head >= Self.readAhead && !stopped { monitor.wait() }
                if stopped { throw AssetPackError(.manifest, "no longer needed") }
                if head >= Self.readAhead {
                    queue.removeFirst(head)
                    head = 0
                }
                queue.append(entry)
                monitor.broadcast()
            }
        }
        monitor.withLock {
            ended = true
            monitor.broadcast()
        }
    }

    /// Tells the reading thread to stop.
    private func stop() {
        monitor.withLock {
            stopped = true
            monitor.broadcast()
        }
    }
}
