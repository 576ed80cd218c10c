#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs code on several threads at once, all joined before the call returns: the calling thread does its
/// part, helpers get pthreads of their own (not a shared pool, so a helper may block on a lock). Helpers pull
/// work from a shared queue, so when the system refuses a thread the others do its share.
package enum WorkerThreads {
    /// Runs `body(index, worker)` for every index of `0..<count` on up to `jobs` threads (the calling thread is
    /// worker 0); the first error stops the work and is rethrown once every worker has stopped.
    package static func run<Failure: Error>(count: Int, jobs: Int,
                                            _ body: @Sendable (_ index: Int, _ worker: Int) throws(Failure) -> Void) throws(Failure) {
        guard count > 0 else { return }
        let queue = SharedQueue<Failure>(count: count)
        @Sendable func work(_ worker: Int) {
            while let index = queue.next() {
                do throws(Failure) { try body(index, worker) } catch { queue.fail(error) }
            }
        }
        withHelpers(max(1, min(jobs, count)) - 1, helper: { number in work(number + 1) }) { work(0) }
        if let failure = queue.failure { throw failure }
    }

    /// The next index to run and the first failure, shared by the workers of one ``run(count:jobs:_:)``.
    private final class SharedQueue<Failure: Error>: @unchecked Sendable {
        private let monitor = Monitor()
        private let count: Int
        // Guarded by `monitor`:
        private var position = 0
        private var firstFailure: Failure?

        init(count: Int) { self.count = count }

        /// The next index, or nil when none is left or a worker failed.
        func next() -> Int? {
            monitor.withLock {
                guard firstFailure == nil, position < count else { return nil }
                position += 1
                return position - 1
            }
        }

        func fail(_ failure: Failure) {
            monitor.withLock { if firstFailure == nil { firstFailure = failure } }
        }

        var failure: Failure? { monitor.withLock { firstFailure } }
    }

    /// Starts `count` helper threads running `helper(number)`, runs `main` on this thread, waits for the
    /// helpers, and returns what `main` returned (or rethrows what it threw, after the helpers ended).
    package static func withHelpers<Result, Failure: Error>(_ count: Int, helper: @Sendable (Int) -> Void,
                                                    _ main: () throws(Failure) -> Result) throws(Failure) -> Result {
        let outcome: Swift.Result<Result, Failure> = withoutActuallyEscaping(helper) { escaping in
            var threads: [Thread] = []
            for number in 0..<max(0, count) {
                if let thread = Thread.start({ escaping(number) }) { threads.append(thread) }
            }
            let outcome = Swift.Result { () throws(Failure) -> Result in try main() }
            for thread in threads { thread.join() }
            return outcome
        }
        return try outcome.get()
    }

    /// One started thread.
    private struct Thread {
        #if canImport(Darwin)
        let handle: pthread_t?
        #else
        let handle: pthread_t
        #endif

        /// Starts `body` on a new thread; nil when the system refuses one.
        static func start(_ body: @escaping @Sendable () -> Void) -> Thread? {
            let context = Unmanaged.passRetained(Body(body)).toOpaque()
            #if canImport(Darwin)
            var handle: pthread_t? = nil
            #else
            var handle = pthread_t()
            #endif
            guard pthread_create(&handle, nil, threadMain, context) == 0 else {
                Unmanaged<Body>.fromOpaque(context).release()
                return nil
            }
            return Thread(handle: handle)
        }

        func join() {
            #if canImport(Darwin)
            if let handle { pthread_join(handle, nil) }
            #else
            pthread_join(handle, nil)
            #endif
        }
    }

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    #if canImport(Darwin)
    private static let threadMain: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { context in
        Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        return nil
    }
    #else
    private static let threadMain: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { context in
        Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
        return nil
    }
    #endif
}
