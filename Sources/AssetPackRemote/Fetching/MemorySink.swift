import AssetPack
import Foundation

/// A sink that keeps the bytes a fetch brings in memory, at most `limit` of them: for small items and tests.
/// (A fetch streams into any `DeliverySink`, the installer's as much as this one: the bytes count only once
/// the fetch returns, and a fetch that must start over calls `restart()` and writes the item again.)
public final class MemorySink: DeliverySink {
    /// What was written since the last restart.
    public private(set) var bytes: [UInt8] = []
    /// The most bytes it accepts.
    public let limit: Int

    /// An empty sink that refuses more than `limit` bytes.
    public init(limit: Int = 16 << 20) { self.limit = limit }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard self.bytes.count + bytes.count <= limit else {
            throw AssetPackError(.limitExceeded, "more than \(limit) bytes for an in-memory download")
        }
        self.bytes.append(contentsOf: bytes)
    }

    public func restart() throws(AssetPackError) { bytes.removeAll(keepingCapacity: true) }

    /// Accepts the bytes: the item's SHA-256 is the check.
    public func finish() throws(AssetPackError) {}
}
