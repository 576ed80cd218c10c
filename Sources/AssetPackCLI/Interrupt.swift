import AssetPack
import AssetPackSystem
import Foundation

/// What Ctrl-C does while a command runs: the first asks the command to stop at a safe point (`stop`;
/// without one the command ends at once), the second ends it at once. Either way the progress line is
/// cleared, one line says so (``Reporting/interrupted()``, or a JSON failure with `--json`), and the exit
/// status is 130.
enum Interrupt {
    /// Installs the handler; `stop` is nil for a command that cannot stop early.
    static func handle(stop: (@Sendable () -> Void)?) {
        let count = Counter()
        InterruptSignal.handle {
            if let stop, count.increment() == 1 {
                stop()
            } else {
                Reporting.fail(AssetPackError(.cancelled, "interrupted"))
            }
        }
    }

    /// For end-to-end tests: `ASSETPACK_TEST_INTERRUPT_AFTER_FILES=N` sends this process Ctrl-C once `N`
    /// files are done, as a person would, and holds the command until the handler has stopped it, so the
    /// interruption always lands mid-way (a test cannot time it from outside).
    struct TestSeam: Sendable {
        private let afterFiles: Int?
        private let sent = Counter()

        init() {
            afterFiles = CurrentProcess.environment("ASSETPACK_TEST_INTERRUPT_AFTER_FILES").flatMap { Int($0) }
        }

        /// Sends `SIGINT` the first time `filesDone` reaches the number, then waits (up to 10 s) until
        /// `stopped()` is true or the handler has ended the process.
        func check(filesDone: Int, stopped: () -> Bool = { false }) {
            guard let afterFiles, filesDone >= afterFiles, sent.increment() == 1 else { return }
            InterruptSignal.raise()
            for _ in 0..<10_000 where !stopped() { Thread.sleep(forTimeInterval: 0.001) }
        }
    }

    /// A count shared between threads.
    final class Counter: @unchecked Sendable {
        private let lock = Monitor()
        private var value = 0

        /// Adds one and returns the new value.
        func increment() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }
}
