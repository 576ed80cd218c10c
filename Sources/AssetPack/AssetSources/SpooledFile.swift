import AssetPackZip
import Foundation

/// A stream copied into a temporary file that is unlinked at once, so it can be read at any offset
/// (an archive the source can only hand out front to back). Nothing is left on disk, even after a crash.
final class SpooledFile: RandomAccessSource, @unchecked Sendable {
    let size: UInt64
    let name: String
    private let file: Descriptor

    /// Copies `stream` into a fresh unlinked file in the system's temporary folder.
    init(copying stream: any ByteStream, name: String) throws(AssetPackError) {
        let folder = try Descriptor.directory(FileManager.default.temporaryDirectory.path)
        let temporary = ".assetpack-spool-\(FileSystem.processID)-\(UInt64.random(in: 0...UInt64.max))"
        let fd = try FileSystem.createFile(temporary, in: folder.fd, readable: true, path: folder.path + "/" + temporary)
        try FileSystem.remove(temporary, in: folder.fd, isDirectory: false, path: folder.path + "/" + temporary)
        self.file = Descriptor(fd, path: name)
        self.name = name
        var total: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do { count = try stream.read(into: buffer) } catch { throw AssetPackError(error.inArchive(name)) }
            if count == 0 { break }
            try FileSystem.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), path: name)
            total += UInt64(count)
        }
        self.size = total
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        do {
            return try FileSystem.pread(file.fd, into: buffer, at: offset, path: name)
        } catch {
            throw ZipError(.io, error.message, archive: name, errno: error.errno)
        }
    }
}
