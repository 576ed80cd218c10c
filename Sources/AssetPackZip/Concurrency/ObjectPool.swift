/// Reusable per-thread tools (a compressor and its buffers) handed to whichever thread needs one next:
/// at most as many are made as threads use them at once, and they are freed with the pool.
final class ObjectPool<Object>: @unchecked Sendable {
    private let monitor = Monitor()
    private let make: () throws(ZipError) -> Object
    // Guarded by `monitor`:
    private var free: [Object] = []

    /// A pool that makes a new object with `make` when none is free.
    init(_ make: @escaping () throws(ZipError) -> Object) {
        self.make = make
    }

    /// An object of the pool (a new one when none is free), to be handed back with ``giveBack(_:)``.
    func take() throws(ZipError) -> Object {
        if let pooled = monitor.withLock({ free.popLast() }) { return pooled }
        return try make()
    }

    /// Returns an object taken with ``take()``.
    func giveBack(_ object: Object) {
        monitor.withLock { free.append(object) }
    }

    /// Runs `body` with an object of the pool, which takes it back afterwards.
    func withObject<Result>(_ body: (Object) throws(ZipError) -> Result) throws(ZipError) -> Result {
        let object = try take()
        defer { giveBack(object) }
        return try body(object)
    }
}
