import Foundation

extension AssetInstaller {
    /// Expands like ``install(progress:cancellation:)``, from Swift concurrency: the blocking work runs on a
    /// dedicated thread (never on the cooperative pool), and cancelling the calling task stops it at the
    /// next file or buffer with ``AssetPackError/Code/cancelled`` (the next call resumes).
    @discardableResult
    public func install(progress: (@Sendable (ExpansionProgress) -> Void)? = nil) async throws(AssetPackError) -> ExpansionResult {
        let cancellation = ExpansionCancellation()
        let outcome: Result<ExpansionResult, AssetPackError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    do throws(AssetPackError) {
                        continuation.resume(returning: .success(try self.install(progress: progress, cancellation: cancellation)))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
                thread.name = "assetpack-install"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try outcome.get()
    }
}
