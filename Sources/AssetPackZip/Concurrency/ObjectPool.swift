import AssetPackSystem

/// Reusable per-thread tools (a compressor and its buffers, a copy buffer) handed to whichever thread needs
/// one next: at most as many are made as threads use them at once, and they are freed with the pool.
/// The one object pool of the package: the zip layer's parallel parts and the packer use it.
package final class ObjectPool<Object, Failure: Error>: @unchecked Sendable {
    private let monitor = Monitor()
    private let make: @Sendable () throws(Failure) -> Object
    // Guarded by `monitor`:
    private var free: [Object] = []

    /// A pool that makes a new object with `make` when none is free.
    package init(_ make: @escaping @Sendable () throws(Failure) -> Object) {
        self.make = make
    }

    /// An object of the pool (a new one when none is free), to be handed back with ``giveBack(_:)``.
    package func take() throws(Failure) -> Object {
        if let pooled = monitor.withLock({ free.popLast() }) { return pooled }
        return try make()
    }

    /// Returns an object taken with ``take()``.
    package func giveBack(_ object: Object) {
        monitor.withLock { free.append(object) }
    }

    /// Runs `body` with an object of the pool, which takes it back afterwards.
    package func withObject<Result>(_ body: (Object) throws(Failure) -> Result) throws(Failure) -> Result {
        let object = try take()
        defer { giveBack(object) }
        return try body(object)
    }
}
