import AssetPack
import Foundation

/// Where a fetch puts the bytes it receives, in order, as they arrive: the whole file is never in memory.
///
/// The bytes are verified as a whole when the last one is in: until ``RemoteFetcher/fetch(_:into:progress:)``
/// returns, what the sink holds does not count (a caller records a file or block as done only after that
/// return). When a download must start over (the file changed on the server, or its hash did not match),
/// the fetcher calls ``restart()`` and writes the item again from its first byte.
public protocol FetchSink: AnyObject {
    /// Appends the next bytes of the item.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError)
    /// Forgets everything written: the next ``write(_:)`` is the item's first byte again.
    func restart() throws(AssetPackError)
    /// Called once the item's last byte is in (and matched ``FetchItem/sha256`` when the item has one): throws
    /// `AssetPackError/Code/verification` when the bytes do not check out, and the fetcher then fetches the
    /// item again from its start, as after a hash mismatch. The default accepts them.
    func complete() throws(AssetPackError)
}

extension FetchSink {
    /// Accepts the bytes: the item's SHA-256 is the check.
    public func complete() throws(AssetPackError) {}
}

/// A sink that keeps the bytes in memory, at most `limit` of them: for small items and tests.
public final class MemorySink: FetchSink {
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
}
