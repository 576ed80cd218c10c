import AssetPack
import Foundation

/// Runs a blocking fetch for Swift concurrency: on a thread of its own, never on the cooperative pool, with
/// a cancellation flag that the calling task's cancellation sets. The one bridge from async callers to the
/// fetcher, whose every wait blocks its thread.
enum OwnThread {
    /// Runs `body` on a new thread and returns (or throws) what it did once it ended; the calling task's
    /// cancellation sets `cancellation`, which `body` is handed.
    static func run<Value: Sendable>(
        cancellation: ExpansionCancellation = ExpansionCancellation(),
        _ body: @escaping @Sendable (ExpansionCancellation) throws(AssetPackError) -> Value
    ) async throws(AssetPackError) -> Value {
        let outcome: Result<Value, AssetPackError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    let outcome = Result { () throws(AssetPackError) -> Value in try body(cancellation) }
                    continuation.resume(returning: outcome)
                }
                thread.name = "assetpack-remote"
                thread.start()
            }
        } onCancel: {
            cancellation.cancel()
        }
        return try outcome.get()
    }
}

