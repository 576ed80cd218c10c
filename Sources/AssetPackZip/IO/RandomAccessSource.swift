import AssetPackSystem

/// Bytes that can be read at any offset, from any thread: what ``ZipArchive`` reads from.
///
/// Implementations must be safe to call concurrently (positioned reads, no shared seek position).
public protocol RandomAccessSource: Sendable {
    /// The total number of bytes.
    var size: UInt64 { get }
    /// A name for error messages (usually a path).
    var name: String { get }
    /// Fills `buffer` from `offset` on; returns fewer bytes only at the end of the source.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int
}

extension RandomAccessSource {
    /// Reads exactly `count` bytes at `offset`, or throws ``ZipError/Code/truncated``.
    func readBytes(_ count: Int, at offset: UInt64) throws(ZipError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withMutableRawBytes { (buffer) throws(ZipError) -> Int in
            try read(into: buffer, at: offset)
        }
        guard got == count else {
            throw ZipError(.truncated, "archive ends after \(offset + UInt64(got)) bytes, inside a record",
                           archive: name, offset: offset)
        }
        return bytes
    }
}

/// A file read with `pread`: any number of threads may read it at once.
public final class FileSource: RandomAccessSource {
    /// The file's descriptor, owned by this object and closed when it goes away.
    public let descriptor: Int32
    public let size: UInt64
    public let name: String

    /// Opens `path` for reading. The open never waits (`O_NONBLOCK`: a FIFO without a writer would hold it
    /// forever), and only a regular file is read.
    /// - Throws: ``ZipError`` with code `.io` when the file cannot be opened, `.needsRandomAccess` when it is a
    ///   FIFO (a pipe), a socket or a device, which cannot be read by offset.
    public init(path: String) throws(ZipError) {
        let file = try io(FileDescriptor.open(path, .nonBlocking))
        do throws(ZipError) {
            let status = try io(file.status(path: path))
            guard status.kind == .file else {
                throw ZipError(.needsRandomAccess, "is a \(status.kind), not a regular file: a zip archive is read by offset, "
                               + "so save it to a file first", archive: path)
            }
            size = status.size
        } catch {
            file.close()
            throw error
        }
        descriptor = file.rawValue
        name = path
    }

    /// Takes ownership of the open `descriptor` (closed when this object goes away) and reads the file it
    /// refers to, whose size is asked once; `name` is shown in messages.
    /// - Throws: ``ZipError`` with code `.io` when the size cannot be read (the descriptor is then closed).
    public init(descriptor: Int32, name: String) throws(ZipError) {
        let file = FileDescriptor(rawValue: descriptor)
        do {
            size = try io(file.status(path: name)).size
        } catch {
            file.close()
            throw error
        }
        self.descriptor = descriptor
        self.name = name
    }

    deinit { FileDescriptor(rawValue: descriptor).close() }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        guard offset < size else { return 0 }
        let wanted = Int(min(UInt64(buffer.count), size - offset))
        return try io(FileDescriptor(rawValue: descriptor)
            .read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), path: name))
    }
}

/// A byte range of another source, e.g. a stored entry of an outer archive read as an archive of its own.
public struct SliceSource: RandomAccessSource {
    /// The source the slice reads from.
    public let base: any RandomAccessSource
    /// Where the slice starts in `base`.
    public let offset: UInt64
    public let size: UInt64
    public let name: String

    /// A slice of `length` bytes at `offset` of `base`.
    public init(_ base: any RandomAccessSource, offset: UInt64, length: UInt64, name: String? = nil) {
        self.base = base
        self.offset = offset
        self.size = length
        self.name = name ?? base.name
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at position: UInt64) throws(ZipError) -> Int {
        guard position < size else { return 0 }
        let wanted = Int(min(UInt64(buffer.count), size - position))
        return try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset + position)
    }
}

/// Bytes in memory, for tests and small archives.
public struct MemorySource: RandomAccessSource {
    /// The bytes.
    public let bytes: [UInt8]
    public var size: UInt64 { UInt64(bytes.count) }
    public let name: String

    /// Wraps `bytes`; `name` is used in error messages.
    public init(_ bytes: [UInt8], name: String = "<memory>") {
        self.bytes = bytes
        self.name = name
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        // An empty buffer may have no base address at all.
        guard offset < size, buffer.count > 0 else { return 0 }
        let count = Int(min(UInt64(buffer.count), size - offset))
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + Int(offset), byteCount: count)
        }
        return count
    }
}
