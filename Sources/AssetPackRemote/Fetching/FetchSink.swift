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

/// A sink that writes into a file from `offset` on: a whole file from 0, or a block into its place in a larger
/// file. The file is created when missing; bytes beyond the item are left as they are. Close it when done.
public final class FileSink: FetchSink {
    /// The file written.
    public let path: String
    /// Where the item's first byte goes.
    public let offset: UInt64
    /// Bytes written since the last restart.
    public private(set) var written: UInt64 = 0
    private let handle: FileHandle

    /// Opens (creating when missing, mode 0644) `path` for writing at `offset`.
    public init(path: String, offset: UInt64 = 0) throws(AssetPackError) {
        if !FileManager.default.fileExists(atPath: path),
           !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]) {
            throw AssetPackError(.io, "cannot create the file", path: path)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw AssetPackError(.io, "cannot open the file for writing", path: path)
        }
        self.path = path
        self.offset = offset
        self.handle = handle
        try seek(to: offset)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        do {
            try handle.write(contentsOf: Data(bytes))
        } catch {
            throw AssetPackError(.io, "cannot write: \(error.localizedDescription)", path: path)
        }
        written += UInt64(bytes.count)
    }

    public func restart() throws(AssetPackError) {
        try seek(to: offset)
        written = 0
    }

    /// Closes the file.
    public func close() throws(AssetPackError) {
        do {
            try handle.close()
        } catch {
            throw AssetPackError(.io, "cannot close: \(error.localizedDescription)", path: path)
        }
    }

    private func seek(to position: UInt64) throws(AssetPackError) {
        do {
            try handle.seek(toOffset: position)
        } catch {
            throw AssetPackError(.io, "cannot seek to \(position): \(error.localizedDescription)", path: path)
        }
    }
}
