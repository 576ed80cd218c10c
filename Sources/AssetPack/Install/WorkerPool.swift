import Dispatch
import Foundation

/// Runs `count` jobs on up to `jobs` threads (`DispatchQueue.concurrentPerform`); each worker pulls the
/// next index until none is left or one job failed. The first error is rethrown once all workers stop.
enum WorkerPool {
    static func run(count: Int, jobs: Int,
                    _ body: @Sendable (_ index: Int, _ worker: Int) throws(AssetPackError) -> Void) throws(AssetPackError) {
        guard count > 0 else { return }
        let shared = Shared()
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { worker in
            while let index = shared.next(limit: count) {
                do throws(AssetPackError) {
                    try body(index, worker)
                } catch {
                    shared.fail(error)
                }
            }
        }
        if let error = shared.error { throw error }
    }

    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var position = 0
        private(set) var error: AssetPackError?

        func next(limit: Int) -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard error == nil, position < limit else { return nil }
            position += 1
            return position - 1
        }

        func fail(_ failure: AssetPackError) {
            lock.lock()
            if error == nil { error = failure }
            lock.unlock()
        }
    }
}

/// A value handed to worker threads whose parts are each touched by one worker only.
final class PerWorker<Value>: @unchecked Sendable {
    private var values: [Value]
    init(count: Int, make: () -> Value) { values = (0..<count).map { _ in make() } }
    subscript(worker: Int) -> Value { values[worker] }
}

/// Results written by several workers, each at its own index.
final class ResultSlots<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int: Value] = [:]
    init(_ initial: [Int: Value] = [:]) { values = initial }
    subscript(index: Int) -> Value? {
        get { lock.lock(); defer { lock.unlock() }; return values[index] }
        set { lock.lock(); values[index] = newValue; lock.unlock() }
    }
}
