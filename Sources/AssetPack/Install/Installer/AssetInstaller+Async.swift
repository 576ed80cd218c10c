import Foundation

extension AssetInstaller {
    /// Expands the source into the destination unless it is already there, from Swift concurrency: the
    /// blocking work runs on a thread of its own (never on the cooperative pool), and cancelling the
    /// calling task stops it at the next file or buffer with ``AssetPackError/Code/cancelled`` (the next
    /// call resumes). See ``installSynchronously(progress:cancellation:)`` for what an install does.
    /// - Parameter progress: called with counts after each file and every few MiB inside large files, one
    ///   call at a time, from the installing threads; keep it short.
    /// - Returns: what was done.
    /// - Throws: ``AssetPackError`` naming the file and the reason (``AssetPackError/Code/cancelled`` when
    ///   the task was cancelled); the destination keeps its previous complete state.
    @discardableResult
    public func install(progress: (@Sendable (ExpansionProgress) -> Void)? = nil) async throws(AssetPackError) -> ExpansionResult {
        try await Self.onOwnThread { cancellation throws(AssetPackError) in
            try installSynchronously(progress: progress, cancellation: cancellation)
        }
    }

    /// Runs `body` on a new thread with a cancellation flag that the calling task's cancellation sets, and
    /// returns (or throws) what it did once it has ended: the one bridge from Swift concurrency to blocking
    /// work (installs, and AssetPackRemote's fetches), so none of it waits on the cooperative pool.
    package static func onOwnThread<Value: Sendable>(
        cancellation: ExpansionCancellation = ExpansionCancellation(),
        _ body: @escaping @Sendable (ExpansionCancellation) throws(AssetPackError) -> Value
    ) async throws(AssetPackError) -> Value {
        let outcome: Result<Value, AssetPackError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                InstallThread.start {
                    continuation.resume(returning: Result { () throws(AssetPackError) -> Value in try body(cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try outcome.get()
    }
}

/// The thread an install started from Swift concurrency runs on: its own, since an install blocks on
/// file I/O for as long as it takes.
enum InstallThread {
    static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "assetpack-install"
        thread.start()
    }
}
