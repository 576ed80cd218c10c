import Foundation
import AssetPackZip

/// Bytes kept in memory as runs: a run of one repeated byte costs a few bytes however long it is, other
/// bytes are kept as they are. A ``ZipWriter`` writes into it (``ZipOutput``) and a ``ZipArchive`` reads it
/// back (``RandomAccessSource``), so an archive with a 4 GiB entry of zeros, or one that starts 5 GiB in,
/// never touches the disk (Go's archive/zip tests do the same with their `rleBuffer`).
///
/// Meant for one thread writing, then any number reading.
public final class RunLengthBuffer: ZipOutput, RandomAccessSource, @unchecked Sendable {
    /// `count` bytes at `start`: `byte` repeated, or `literal` when it is not empty.
    private struct Segment {
        var start: UInt64
        var count: UInt64
        var byte: UInt8
        var literal: [UInt8]
    }

    /// Writes of at least this many equal bytes become a run.
    private static let shortestRun = 64
    private var segments: [Segment] = []
    public let name: String
    public private(set) var size: UInt64 = 0

    /// An empty buffer named `name`, or one that starts with `zeros` zero bytes (for offsets past 4 GiB).
    public init(name: String = "memory.zip", zeros: UInt64 = 0) {
        self.name = name
        if zeros > 0 { appendRun(of: 0, count: zeros) }
    }

    package var path: String { name }
    package var position: UInt64 { size }

    /// Bytes kept in memory: what the runs save.
    public var storedBytes: Int { segments.reduce(0) { $0 + $1.literal.count + MemoryLayout<Segment>.stride } }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(ZipError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let first = bytes[0]
        // All equal when the bytes match themselves shifted by one.
        if bytes.count >= Self.shortestRun && memcmp(base, base + 1, bytes.count - 1) == 0 {
            appendRun(of: first, count: UInt64(bytes.count))
        } else if let last = segments.indices.last, !segments[last].literal.isEmpty {
            segments[last].literal.append(contentsOf: bytes)
            segments[last].count += UInt64(bytes.count)
            size += UInt64(bytes.count)
        } else {
            segments.append(Segment(start: size, count: UInt64(bytes.count), byte: 0, literal: Array(bytes)))
            size += UInt64(bytes.count)
        }
    }

    private func appendRun(of byte: UInt8, count: UInt64) {
        if let last = segments.indices.last, segments[last].literal.isEmpty, segments[last].byte == byte {
            segments[last].count += count
        } else {
            segments.append(Segment(start: size, count: count, byte: byte, literal: []))
        }
        size += count
    }

    /// Overwrites bytes written before; they must lie in bytes kept as they are (headers are).
    package func patch(_ bytes: [UInt8], at offset: UInt64) throws(ZipError) {
        for (index, byte) in bytes.enumerated() {
            let at = offset + UInt64(index)
            guard let found = segment(containing: at), !segments[found].literal.isEmpty else {
                throw ZipError(.invalidArgument, "a run-length buffer patches only bytes kept as they are", offset: at)
            }
            segments[found].literal[Int(at - segments[found].start)] = byte
        }
    }

    package func flush() throws(ZipError) {}
    package func sync() throws(ZipError) {}

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        guard offset < size, var index = segment(containing: offset) else { return 0 }
        var done = 0
        var position = offset
        while done < buffer.count, index < segments.count {
            let segment = segments[index]
            let skip = position - segment.start
            let count = Int(min(UInt64(buffer.count - done), segment.count - skip))
            let target = buffer.baseAddress! + done
            if segment.literal.isEmpty {
                memset(target, Int32(segment.byte), count)
            } else {
                segment.literal.withUnsafeBytes { target.copyMemory(from: $0.baseAddress! + Int(skip), byteCount: count) }
            }
            done += count
            position += UInt64(count)
            index += 1
        }
        return done
    }

    /// The index of the segment holding byte `offset` (binary search).
    private func segment(containing offset: UInt64) -> Int? {
        var low = 0, high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].start + segments[middle].count <= offset { low = middle + 1 } else { high = middle }
        }
        return low < segments.count && segments[low].start <= offset ? low : nil
    }

    /// Writes every byte to the file at `path` (runs expanded), for tools that need a real file.
    public func write(toFile path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while offset < size {
            let count = try buffer.withUnsafeMutableBytes { (raw) throws(ZipError) -> Int in try read(into: raw, at: offset) }
            try handle.write(contentsOf: buffer[0..<count])
            offset += UInt64(count)
        }
    }
}
