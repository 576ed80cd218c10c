import AssetPackSystem

/// Where an expansion stands, reported through the progress callback (``AssetInstaller/install(progress:)``).
/// Totals come from the plan; a very large bundle, planned a window at a time, adds each window's files
/// and bytes as it reaches it. Files kept from an interrupted run or hard-linked count as done at once.
public struct ExpansionProgress: Sendable, Equatable {
    /// The step the expansion is in.
    public enum Phase: String, Sendable {
        /// Reading the manifest or walking the source.
        case planning
        /// Creating directories and writing files into the staging tree.
        case writing
        /// Putting the written tree on the device (``Durability/flushOnCommit``): one `syncfs`, whose
        /// length depends on how much the device still has to write.
        case flushing
        /// The staging tree is complete and its record written; the switch comes next.
        case committed
        /// The new tree is in place; the previous one is being removed.
        case switched
        /// Finished.
        case done
    }

    /// The current step.
    public var phase: Phase
    /// Files (and symlinks) finished, out of ``filesTotal``.
    public var filesDone: Int
    /// Files (and symlinks) in the tree.
    public var filesTotal: Int
    /// Bytes finished, out of ``bytesTotal``.
    public var bytesDone: UInt64
    /// Bytes in the tree.
    public var bytesTotal: UInt64
    /// Files actually written by this call (not kept or linked).
    public var filesWritten: Int
    /// The last file finished, when the report is about one.
    public var path: AssetPath?

    /// A report with nothing done.
    public init(phase: Phase, filesDone: Int = 0, filesTotal: Int = 0, bytesDone: UInt64 = 0, bytesTotal: UInt64 = 0,
                filesWritten: Int = 0, path: AssetPath? = nil) {
        self.phase = phase
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.filesWritten = filesWritten
        self.path = path
    }
}

/// A flag that stops an expansion at the next file or buffer: the call then throws
/// ``AssetPackError/Code/cancelled``. What was verified so far is kept for the next call to resume.
public final class ExpansionCancellation: @unchecked Sendable {
    private let monitor = Monitor()
    private var cancelled = false

    /// A flag that is not set.
    public init() {}

    /// Asks the expansion to stop.
    public func cancel() {
        monitor.withLock { cancelled = true }
    }

    /// True once ``cancel()`` was called.
    public var isCancelled: Bool {
        monitor.withLock { cancelled }
    }
}
