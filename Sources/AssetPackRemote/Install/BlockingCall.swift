import AssetPack
import AssetPackSystem

/// Runs async work from a thread that may block (the command line's main thread; never the cooperative pool)
/// and waits for it. The fetch path never needs it: a fetch blocks the thread that asked for it.
package enum BlockingCall {
    /// Runs `body` as a detached task and returns what it returned once it ends. `started` is called, before
    /// the wait, with a function that cancels the task (the command line hands it to its Ctrl-C handler).
    package static func run<Value: Sendable>(started: (_ cancel: @escaping @Sendable () -> Void) -> Void = { _ in },
                                             _ body: @escaping @Sendable () async throws(AssetPackError) -> Value)
        throws(AssetPackError) -> Value {
        let outcome = Outcome<Value>()
        let task = Task.detached {
            do throws(AssetPackError) {
                outcome.finish(.success(try await body()))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        started { task.cancel() }
        return try outcome.wait().get()
    }

    /// The task's result, handed over under a ``Monitor``.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        private let monitor = Monitor()
        /// Guarded by `monitor`.
        private var value: Result<Value, AssetPackError>?

        func finish(_ result: Result<Value, AssetPackError>) {
            monitor.withLock {
                value = result
                monitor.broadcast()
            }
        }

        func wait() -> Result<Value, AssetPackError> {
            monitor.withLock {
                while value == nil { monitor.wait() }
                return value!
            }
        }
    }
}
