import AssetPack
import Foundation

/// Helpers reused from file to file by whichever thread needs one (a copy buffer): one is made only when
/// none is free, so there are never more than threads using them at once.
final class Pool<Object>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: @Sendable () throws(AssetPackError) -> Object
    // Guarded by `lock`:
    private var free: [Object] = []

    /// A pool that makes new objects with `make`.
    init(_ make: @escaping @Sendable () throws(AssetPackError) -> Object) {
        self.make = make
    }

    /// Runs `body` with an object of the pool, which takes it back afterwards.
    func with<Result>(_ body: (Object) throws(AssetPackError) -> Result) throws(AssetPackError) -> Result {
        let object: Object
        if let pooled = lock.withLock({ free.popLast() }) { object = pooled } else { object = try make() }
        defer { lock.withLock { free.append(object) } }
        return try body(object)
    }
}
