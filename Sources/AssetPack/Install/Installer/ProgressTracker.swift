import AssetPackSystem
import AssetPackZip

/// Counts what is done, calls the progress callback (one call at a time, in order, from whichever worker
/// finished something; byte reports inside a large file are throttled), passes events to the installer's
/// log, and answers whether to stop.
final class ProgressTracker: @unchecked Sendable {
    typealias Callback = @Sendable (ExpansionProgress) -> Void

    private let monitor = Monitor()
    private let callback: Callback?
    private let cancellation: ExpansionCancellation?
    private let logger: InstallLog?
    private var state: ExpansionProgress
    private var lastByteReport: UInt64 = 0
    private var resumedBlockBytes: UInt64 = 0

    init(callback: Callback?, cancellation: ExpansionCancellation?, log: InstallLog? = nil) {
        self.callback = callback
        self.cancellation = cancellation
        self.logger = log
        self.state = ExpansionProgress(phase: .planning)
    }

    /// Sets the totals from the plan and reports the writing phase.
    func start(files: Int, bytes: UInt64) {
        update { state in
            state.phase = .writing
            state.filesTotal = files
            state.bytesTotal = bytes
        }
    }

    /// Adds the files and bytes of a window to the totals (a bundle expanded a window at a time learns its
    /// totals as it goes) and reports the writing phase.
    func grow(files: Int, bytes: UInt64) {
        update { state in
            state.phase = .writing
            state.filesTotal += files
            state.bytesTotal += bytes
        }
    }

    /// Forgets every count: the expansion starts over.
    func restart() {
        monitor.withLock {
            state = ExpansionProgress(phase: .planning)
            lastByteReport = 0
            resumedBlockBytes = 0
        }
    }

    /// Reports a new phase.
    func enter(_ phase: ExpansionProgress.Phase) {
        update { $0.phase = phase; $0.path = nil }
    }

    /// Adds bytes written inside a file; reports at most every 4 MiB.
    func advance(bytes: UInt64) {
        monitor.withLock {
            state.bytesDone += bytes
            let report = state.bytesDone - lastByteReport >= 4 << 20
            if report { lastByteReport = state.bytesDone }
            if report { callback?(state) }
        }
    }

    /// Adds the bytes of blocks an interrupted run wrote, found complete and kept (see ``BlockJournal``).
    func resumed(bytes: UInt64) {
        monitor.withLock { resumedBlockBytes += bytes }
        advance(bytes: bytes)
    }

    /// Bytes reported with ``resumed(bytes:)`` so far.
    var bytesResumedInBlocks: UInt64 {
        monitor.withLock { resumedBlockBytes }
    }

    /// A file is finished; `extraBytes` are its bytes not yet counted by ``advance(bytes:)``.
    func finished(_ path: AssetPath, extraBytes: UInt64, written: Bool) {
        update { state in
            state.filesDone += 1
            state.bytesDone += extraBytes
            if written { state.filesWritten += 1 }
            state.path = path
        }
    }

    /// Passes `event` to the installer's log (``AssetInstaller/log``).
    func log(_ event: InstallEvent) {
        logger?(event)
    }

    /// The current counts.
    var snapshot: ExpansionProgress {
        monitor.withLock { state }
    }

    /// Throws ``AssetPackError/Code/cancelled`` when cancellation was asked for.
    func checkCancelled() throws(AssetPackError) {
        if cancellation?.isCancelled == true {
            throw AssetPackError(.cancelled, "expansion was cancelled; the next call resumes it")
        }
    }

    private func update(_ change: (inout ExpansionProgress) -> Void) {
        // The callback runs under the lock so reports from several workers arrive in order.
        monitor.withLock {
            change(&state)
            callback?(state)
        }
    }
}
