import AssetPackSystem

/// Bytes read front to back, once: a pipe, a socket, an entry being inflated. What the forward-only
/// ``ZipStreamReader`` reads from, and what an open entry offers.
public protocol ByteStream: AnyObject {
    /// Fills up to `buffer.count` bytes; returns 0 only at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int
}

extension ByteStream {
    /// Reads to the end into an array. Meant for small data (tests, manifests); stream large data instead.
    public func readAll(limit: Int = .max) throws(ZipError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = try chunk.withMutableRawBytes { (buffer) throws(ZipError) -> Int in try read(into: buffer) }
            if count == 0 { return result }
            guard result.count + count <= limit else {
                throw ZipError(.limitExceeded, "data is larger than \(limit) bytes")
            }
            result.append(contentsOf: chunk[0..<count])
        }
    }
}

/// A file descriptor read with `read(2)`: a pipe, standard input, or a file read front to back.
public final class FileDescriptorStream: ByteStream {
    /// The descriptor read from.
    public let descriptor: Int32
    private let ownsDescriptor: Bool
    private let name: String

    /// Reads `descriptor`; closes it on deinit when `closeOnDeinit` is true.
    public init(descriptor: Int32, name: String, closeOnDeinit: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = closeOnDeinit
        self.name = name
    }

    /// Opens `path` for reading front to back.
    public convenience init(path: String) throws(ZipError) {
        self.init(descriptor: try io(FileDescriptor.open(path)).rawValue, name: path, closeOnDeinit: true)
    }

    deinit { if ownsDescriptor { FileDescriptor(rawValue: descriptor).close() } }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        try io(FileDescriptor(rawValue: descriptor).read(into: buffer, path: name))
    }
}

/// A byte array read front to back.
public final class MemoryStream: ByteStream {
    private let bytes: [UInt8]
    private var position = 0

    /// Streams `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}

/// A ``RandomAccessSource`` read front to back from its first byte (a spooled file handed out as a stream).
package final class RandomAccessStream: ByteStream {
    private let source: any RandomAccessSource
    private var position: UInt64 = 0

    /// Streams `source` from its start.
    package init(_ source: any RandomAccessSource) { self.source = source }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = try source.read(into: buffer, at: position)
        position += UInt64(count)
        return count
    }
}
