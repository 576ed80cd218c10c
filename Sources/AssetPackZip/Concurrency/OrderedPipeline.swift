import AssetPackSystem

/// Produces results for the items `0..<count` on several threads and consumes them in item order on the
/// calling thread, so a file written from parallel pieces is the same whatever the number of threads.
/// An item is started only while the weights of the items started but not consumed stay within `window`
/// (one is always allowed); the calling thread helps producing, so `jobs` = 1 starts no thread. The first
/// error stops the pipeline: every thread is joined, unconsumed results are dropped, the error is rethrown.
package enum OrderedPipeline {
    /// Runs the pipeline.
    /// - Parameters:
    ///   - count: the number of items.
    ///   - jobs: threads producing at once, the calling thread included (at least 1).
    ///   - window: the most weight started but not yet consumed.
    ///   - weights: each item's weight (e.g. its bytes); nil weighs every item 1.
    ///   - produce: makes item `index`'s result; called on any of the threads, once per item.
    ///   - consume: takes item `index`'s result; called on the calling thread, in index order.
    package static func run<Output: Sendable, Failure: Error>(
        count: Int, jobs: Int, window: Int, weights: [Int]? = nil,
        produce: @Sendable (_ index: Int) throws(Failure) -> Output,
        consume: (_ index: Int, _ output: Output) throws(Failure) -> Void
    ) throws(Failure) {
        guard count > 0 else { return }
        precondition(weights.map { $0.count == count } ?? true, "OrderedPipeline needs one weight per item")
        let state = PipelineState<Output, Failure>(count: count, window: max(1, window), weights: weights)
        let helpers = max(1, min(jobs, count)) - 1
        try WorkerThreads.withHelpers(helpers, helper: { _ in state.helpUntilDone(produce) }) { () throws(Failure) in
            defer { state.stop() }
            for index in 0..<count {
                let output = try state.next(index, produce: produce)
                try consume(index, output)
                state.consumed(index)
            }
        }
    }
}

/// The shared state of one ``OrderedPipeline`` run, guarded by one monitor.
private final class PipelineState<Output: Sendable, Failure: Error>: @unchecked Sendable {
    private let monitor = Monitor()
    private let count: Int
    private let window: Int
    private let weights: [Int]?
    // Guarded by `monitor`:
    private var nextStart = 0
    private var outstanding = 0
    private var results: [Int: Output] = [:]
    private var failure: Failure?
    private var stopped = false

    init(count: Int, window: Int, weights: [Int]?) {
        self.count = count
        self.window = window
        self.weights = weights
    }

    private func weight(_ index: Int) -> Int { max(0, weights?[index] ?? 1) }

    /// Under the lock: the next item to start, when one may start now.
    private func claim() -> Int? {
        guard !stopped, failure == nil, nextStart < count else { return nil }
        let cost = weight(nextStart)
        guard outstanding == 0 || outstanding + cost <= window else { return nil }
        outstanding += cost
        nextStart += 1
        return nextStart - 1
    }

    /// Produces `index` without the lock and records the outcome.
    private func run(_ index: Int, _ produce: @Sendable (Int) throws(Failure) -> Output) {
        let outcome = Result { () throws(Failure) -> Output in try produce(index) }
        monitor.withLock {
            switch outcome {
            case .success(let output): results[index] = output
            case .failure(let error): if failure == nil { failure = error }
            }
            monitor.broadcast()
        }
    }

    /// A helper thread: starts items while there are any, waiting while the window is full.
    func helpUntilDone(_ produce: @Sendable (Int) throws(Failure) -> Output) {
        while true {
            let index: Int? = monitor.withLock {
                while true {
                    if let index = claim() { return index }
                    if stopped || failure != nil || nextStart >= count { return nil }
                    monitor.wait()
                }
            }
            guard let index else { return }
            run(index, produce)
        }
    }

    /// The calling thread: item `index`'s result, producing other items itself while it is not ready.
    func next(_ index: Int, produce: @Sendable (Int) throws(Failure) -> Output) throws(Failure) -> Output {
        while true {
            let step: (output: Output?, start: Int?) = try monitor.withLock { () throws(Failure) in
                while true {
                    if let failure { throw failure }
                    if let output = results.removeValue(forKey: index) { return (output, nil) }
                    if let start = claim() { return (nil, start) }
                    monitor.wait()
                }
            }
            if let output = step.output { return output }
            if let start = step.start { run(start, produce) }
        }
    }

    /// Item `index` was consumed: its weight leaves the window.
    func consumed(_ index: Int) {
        monitor.withLock {
            outstanding -= weight(index)
            monitor.broadcast()
        }
    }

    /// No item starts any more; helpers return once their current item is done.
    func stop() {
        monitor.withLock {
            stopped = true
            results.removeAll()
            monitor.broadcast()
        }
    }
}
