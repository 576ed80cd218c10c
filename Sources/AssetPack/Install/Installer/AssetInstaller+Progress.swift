import AssetPackSystem
import AssetPackZip
import Foundation

extension AssetInstaller {
    /// Installs like ``install(progress:)`` and keeps a Foundation `Progress` up to date, for a progress
    /// view or a parent `Progress` (add it as a child with `addChild(_:withPendingUnitCount:)`).
    ///
    /// While files are written, `totalUnitCount` is the bytes of the tree and `completedUnitCount` the bytes
    /// done (at most every 50 ms, and at the end, when every unit is complete). `cancel()` stops the install
    /// at the next file or buffer with ``AssetPackError/Code/cancelled`` (a `cancellationHandler` already set
    /// is still called). Updates come from the installing threads: hop to the main actor before touching a view.
    /// - Parameter progress: the progress to update; one that is already cancelled installs nothing.
    @discardableResult
    public func install(reportingTo progress: Progress) async throws(AssetPackError) -> ExpansionResult {
        let cancellation = ExpansionCancellation()
        let bridge = ProgressBridge(progress, cancellation: cancellation)
        if progress.isCancelled { throw ProgressBridge.cancelledError }
        let result = try await Self.onOwnThread(cancellation: cancellation) { cancellation throws(AssetPackError) in
            try installSynchronously(progress: { bridge.update($0) }, cancellation: cancellation)
        }
        bridge.finish()
        return result
    }
}

/// Keeps a `Progress` up to date from an install's reports, and turns its cancellation into the install's.
final class ProgressBridge: @unchecked Sendable {
    static let cancelledError = AssetPackError(.cancelled, "the install was cancelled; the next one resumes it")

    private let progress: Progress
    private let monitor = Monitor()
    private var lastUpdate = -Double.infinity  // guarded by `monitor`

    init(_ progress: Progress, cancellation: ExpansionCancellation) {
        self.progress = progress
        progress.isCancellable = true
        let earlier = progress.cancellationHandler
        progress.cancellationHandler = {
            cancellation.cancel()
            earlier?()
        }
        if progress.totalUnitCount <= 0 { progress.totalUnitCount = 1 }
    }

    /// Copies the counts of a writing report, at most every 50 ms (and always when every byte is done).
    func update(_ report: ExpansionProgress) {
        guard report.phase == .writing else { return }
        let now = SystemClock.monotonicSeconds()
        let due = monitor.withLock {
            guard now - lastUpdate >= 0.05 || report.bytesDone == report.bytesTotal else { return false }
            lastUpdate = now
            return true
        }
        guard due else { return }
        progress.totalUnitCount = Int64(clamping: max(1, report.bytesTotal))
        progress.completedUnitCount = Int64(clamping: report.bytesTotal == 0 ? 0 : report.bytesDone)
    }

    /// Marks every unit complete.
    func finish() {
        progress.completedUnitCount = progress.totalUnitCount
    }
}
