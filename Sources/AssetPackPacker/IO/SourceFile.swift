import AssetPack
import AssetPackSystem
import AssetPackZip
import Crypto

/// A source file read front to back, once, counting its bytes so that a file that changed size since the
/// scan is noticed instead of being packed half-old, half-new. Opened with `O_NOFOLLOW` unless links are
/// followed, so a file swapped for a symlink after the scan is refused too. Its SHA-256 is computed on the
/// way (``sha256``), in the same pass that copies or compresses it.
final class SourceFile: ByteStream {
    /// Where the file is.
    let path: String
    /// The size the scan saw.
    let expectedSize: UInt64
    /// Bytes read so far.
    private(set) var bytesRead: UInt64 = 0
    private let stream: FileDescriptorStream
    private var hasher = Crypto.SHA256()

    /// Opens `path`, expected to hold `expectedSize` bytes.
    init(_ path: String, expectedSize: UInt64, follow: Bool) throws(AssetPackError) {
        let descriptor = try openSource(path, follow: follow)
        self.path = path
        self.expectedSize = expectedSize
        self.stream = FileDescriptorStream(descriptor: descriptor.rawValue, name: path, closeOnDeinit: true)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = try stream.read(into: buffer)
        bytesRead += UInt64(count)
        hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        return count
    }

    /// The SHA-256 of the bytes read so far, as a manifest records it (read the file to its end first).
    var sha256: String { hasher.finalize().withUnsafeBytes { lowercaseHex($0) } }

    /// The error to report when writing this file's bytes failed with `error`: a file that changed size
    /// while it was read (which the zip writer notices first) is named as such; other failures pass through.
    func explain(_ error: ZipError) -> AssetPackError {
        guard error.code != .io, error.code != .zlib, bytesRead != expectedSize else { return AssetPackError(error) }
        return changedError
    }

    private var changedError: AssetPackError {
        AssetPackError(.verification, "changed while being packed: \(expectedSize) bytes when scanned, \(bytesRead) read",
                       path: path)
    }

    /// Throws unless exactly the expected number of bytes was read.
    /// - Throws: `.verification` naming the file when it changed size while being read.
    func checkComplete() throws(AssetPackError) {
        guard bytesRead == expectedSize else { throw changedError }
    }

    /// Reads the whole (small) file into the start of `buffer`, which holds at least ``expectedSize`` bytes.
    /// - Throws: `.verification` when the file no longer has the size the scan saw; read errors.
    func readWhole(into buffer: UnsafeMutableRawBufferPointer) throws(AssetPackError) {
        let size = Int(expectedSize)
        do throws(ZipError) {
            while bytesRead < expectedSize {
                let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[Int(bytesRead)..<size]))
                if got == 0 { break }
            }
            // One more read must find the end: a file that grew is as changed as one that shrank.
            var extra: UInt8 = 0
            _ = try withUnsafeMutableBytes(of: &extra) { (byte) throws(ZipError) -> Int in try read(into: byte) }
        } catch {
            throw explain(error)
        }
        try checkComplete()
    }

    /// ``readWhole(into:)`` into a new array.
    func readWhole() throws(AssetPackError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(expectedSize))
        try bytes.withUnsafeMutableBytes { (buffer) in
            Result { () throws(AssetPackError) in try readWhole(into: buffer) }
        }.get()
        return bytes
    }
}

/// A source file read at offsets, by several threads at once (block-parallel deflate, see
/// ``ParallelDeflater``): it offers exactly the size the scan saw. A file that shrank since ends early —
/// the deflater reports it `.truncated`, ``explain(_:)`` names it as changed — and one that changed size
/// at all is caught by ``checkUnchanged()`` once it was read.
final class SourceFileRegion: RandomAccessSource, @unchecked Sendable {
    /// Where the file is.
    let path: String
    /// The size the scan saw.
    let size: UInt64
    private let descriptor: FileDescriptor

    /// Opens `path`, expected to hold `expectedSize` bytes.
    init(_ path: String, expectedSize: UInt64, follow: Bool) throws(AssetPackError) {
        self.descriptor = try openSource(path, follow: follow)
        self.path = path
        self.size = expectedSize
    }

    deinit { descriptor.close() }

    var name: String { path }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        guard offset < size, buffer.count > 0 else { return 0 }
        let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(UInt64(buffer.count), size - offset))])
        do {
            return try descriptor.read(at: offset, into: wanted, path: path)
        } catch {
            throw ZipError(error)
        }
    }

    /// The error to report when packing this file failed with `error`.
    func explain(_ error: ZipError) -> AssetPackError {
        guard error.code == .truncated, error.archive == path else { return AssetPackError(error) }
        return changedError(found: "fewer bytes")
    }

    /// Throws unless the file still has the size the scan saw.
    /// - Throws: `.verification` naming the file when it changed size while being read.
    func checkUnchanged() throws(AssetPackError) {
        let now = try io(descriptor.status(path: path)).size
        guard now == size else { throw changedError(found: "\(now) bytes") }
    }

    private func changedError(found: String) -> AssetPackError {
        AssetPackError(.verification, "changed while being packed: \(size) bytes when scanned, \(found) now", path: path)
    }
}

/// Opens the source file at `path` for reading; with `follow` false a symlink is refused (`O_NOFOLLOW`).
private func openSource(_ path: String, follow: Bool) throws(AssetPackError) -> FileDescriptor {
    do throws(SystemError) {
        return try FileDescriptor.open(path, follow ? [] : .noFollow)
    } catch where error.errno == .tooManySymbolicLinkLevels && !follow {
        throw AssetPackError(.symlink, "became a symbolic link while packing", path: path,
                             cause: .system(call: error.call, errno: error.errno.rawValue))
    } catch {
        throw AssetPackError(error)
    }
}

/// Copies files byte for byte, computing the CRC-32 on the way, through one reusable 1 MiB buffer.
/// One per thread.
final class FileCopier {
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)

    deinit { buffer.deallocate() }

    /// Copies `source` to the new file `destination` (which must not exist) with `permissions`.
    /// - Returns: the CRC-32 of the bytes copied.
    func copy(_ source: SourceFile, to destination: String, permissions: UInt32) throws(AssetPackError) -> UInt32 {
        let output = try io(FileSystem.createFile(destination, permissions: permissions))
        var crc = CRC32()
        do throws(AssetPackError) {
            while true {
                let count: Int
                do { count = try source.read(into: buffer) } catch { throw AssetPackError(error, path: source.path) }
                if count == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                crc.update(chunk)
                try io(output.writeAll(chunk, path: destination))
            }
        } catch {
            output.close()
            throw error
        }
        try io(output.closeAfterWriting(path: destination))
        try source.checkComplete()
        return crc.value
    }
}
