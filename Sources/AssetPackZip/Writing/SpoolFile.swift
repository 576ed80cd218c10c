import AssetPackSystem

/// Bytes appended front to back, then read back once from the start: what a writer must put last but
/// learns first — a zip's central directory, a manifest added to an archive after its entries. Up to
/// `memoryLimit` bytes stay in memory; past that they go to a temporary file made beside `path` and unlinked
/// at once, so it takes no room in memory and leaves nothing behind, whatever happens to the process.
package final class SpoolFile: ByteStream {
    private let path: String
    private let memoryLimit: Int
    private var memory: [UInt8] = []
    private var file: FileDescriptor?
    private var fileSize: UInt64 = 0
    private var readOffset: UInt64 = 0

    /// An empty spool whose file, when it needs one, goes beside `path` (also the name in messages).
    package init(beside path: String, memoryLimit: Int = 1 << 20) {
        self.path = path
        self.memoryLimit = memoryLimit
    }

    deinit { file?.close() }

    /// The bytes appended so far.
    package var size: UInt64 { fileSize + UInt64(memory.count) }

    /// Appends `bytes`.
    package func append(_ bytes: [UInt8]) throws(ZipError) {
        memory.append(contentsOf: bytes)
        if memory.count >= memoryLimit { try spill() }
    }

    /// Moves the bytes in memory to the end of the file, made now if there is none yet.
    private func spill() throws(ZipError) {
        let file: FileDescriptor
        if let existing = self.file { file = existing } else { file = try makeFile() }
        try memory.withRawBytes { (raw) throws(ZipError) in try io(file.writeAll(raw, at: fileSize, path: path)) }
        fileSize += UInt64(memory.count)
        memory.removeAll(keepingCapacity: true)
    }

    /// A new temporary file beside ``path``, already unlinked: only the descriptor holds it.
    private func makeFile() throws(ZipError) -> FileDescriptor {
        let (name, descriptor) = try io(FileSystem.makeTemporaryFile(prefix: path + ".spool-"))
        file = descriptor
        try io(FileSystem.removeTree(name))
        return descriptor
    }

    /// Reads the next bytes from where the last read ended (the start, at first); 0 at the end.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if let file, readOffset < fileSize {
            let wanted = min(buffer.count, Int(fileSize - readOffset))
            let room = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted])
            let count = try io(file.read(at: readOffset, into: room, path: path))
            guard count > 0 else { throw ZipError(.io, "the spool file ended early", archive: path) }
            readOffset += UInt64(count)
            return count
        }
        let start = Int(readOffset - fileSize)
        let count = min(buffer.count, memory.count - start)
        guard count > 0 else { return 0 }
        memory.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + start, byteCount: count) }
        readOffset += UInt64(count)
        return count
    }
}
