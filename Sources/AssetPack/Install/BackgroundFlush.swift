import AssetPackSystem
import Foundation

/// With ``Durability/flushOnCommit`` where the file system can be flushed as a whole (Linux's `syncfs`),
/// flushes it every ``interval`` while the workers write: the device then writes the first files while
/// the last are being expanded, and the flush before the record has little left to wait for. (Large
/// files also start their own write-back as they are written; this covers the many small ones, for which
/// one call per file would cost more than it saves.)
///
/// It flushes through its own descriptor of the staging folder: `syncfs` reports a write-back error once
/// per open file, so the final flush through the staging tree's descriptor still sees every error. Its
/// own failures are ignored for that reason.
final class BackgroundFlush: @unchecked Sendable {
    /// Time between two flushes.
    static let interval: TimeInterval = 0.1
    /// Below this many files and bytes to write, no background flush is started.
    static let minimumFiles = 256
    static let minimumBytes: UInt64 = 16 << 20

    private let condition = NSCondition()
    private var stopped = false  // guarded by `condition`
    private let finished = DispatchSemaphore(value: 0)

    /// Starts flushing the file system of `staging` in the background, or returns nil when there is
    /// nothing to gain (no `syncfs`, or too little to write).
    init?(_ staging: Descriptor, files: Int, bytes: UInt64) {
        guard FileDescriptor.canSyncFileSystem, files >= Self.minimumFiles || bytes >= Self.minimumBytes,
              let own = try? staging.directory(".") else { return nil }
        let thread = Thread { [self] in run(own) }
        thread.name = "assetpack-flush"
        thread.start()
    }

    /// Stops flushing and waits for a flush in progress to end.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
        finished.wait()
    }

    private func run(_ folder: Descriptor) {
        while true {
            condition.lock()
            if !stopped { _ = condition.wait(until: Date(timeIntervalSinceNow: Self.interval)) }
            let stop = stopped
            condition.unlock()
            if stop { break }
            try? folder.fd.syncFileSystem(path: folder.path)
        }
        finished.signal()
    }
}
