extension ZipWriter {
    /// Adds a file deflated in independent blocks by `deflater`, on its ``ParallelDeflater/jobs`` threads:
    /// the entry is one ordinary deflate stream that every unzip reads, and ``WrittenEntry/blocks`` says
    /// where its blocks start so that it can also be inflated block by block in parallel
    /// (``BlockParallelInflater``). The source is read at offsets, a block per thread; the bytes are the
    /// same whatever the number of jobs. `blockLengths`, when given, are the blocks' lengths (content-defined
    /// chunks), else each block but the last has the deflater's ``ParallelDeflater/blockSize``.
    /// - Throws: ``ZipError`` naming the entry: `.truncated` when the source is shorter than its size,
    ///   `.invalidArgument` for a duplicate or empty name, `.io` when reading or writing fails.
    @discardableResult
    package func addFile(_ name: String, from source: any RandomAccessSource, deflater: ParallelDeflater,
                        blockLengths: [Int]? = nil, permissions: UInt32 = 0o644,
                        modified: Int64? = nil) throws(ZipError) -> WrittenEntry {
        let spec = EntrySpec(name: name, method: .deflate, mode: 0o100000 | normalized(permissions, directory: false),
                             modified: modified, dosDirectory: false, level: deflater.level)
        var index: DeflateBlockIndex?
        var written = try write(spec, sizeHint: source.size) { () throws(ZipError) -> (crc: UInt32, size: UInt64) in
            do throws(ZipError) {
                let result = try deflater.compress(source, blockLengths: blockLengths) { (bytes) throws(ZipError) in try output.write(bytes) }
                index = result.index
                return (result.crc32, result.uncompressedSize)
            } catch {
                throw error.inArchive(path).forEntry(name)
            }
        }
        written.blocks = index
        return written
    }

    /// Adds an entry whose data is already compressed with `method` (compressed elsewhere, e.g. on another
    /// thread): the bytes are written as they are. The writer cannot check deflate data, so the caller
    /// vouches that it inflates to `uncompressedSize` bytes with CRC-32 `crc32`; every reader checks both.
    /// - Throws: ``ZipError`` naming the entry: `.invalidArgument` for a duplicate or empty name, an
    ///   unsupported method, or stored data whose length is not `uncompressedSize`; `.io` when writing fails.
    @discardableResult
    package func addPrecompressed(_ name: String, method: CompressionMethod, crc32: UInt32, uncompressedSize: UInt64,
                                 compressedData: [UInt8], permissions: UInt32 = 0o644,
                                 modified: Int64? = nil) throws(ZipError) -> WrittenEntry {
        try addPrecompressed(name, method: method, crc32: crc32, uncompressedSize: uncompressedSize,
                             permissions: permissions, modified: modified) { () throws(ZipError) in
            try output.write(compressedData)
        }
    }

    /// Adds an entry whose data, already compressed with `method`, is read from `compressedData` to its end
    /// (a temporary file, say); otherwise as the variant that takes the bytes in a buffer.
    @discardableResult
    package func addPrecompressed(_ name: String, method: CompressionMethod, crc32: UInt32, uncompressedSize: UInt64,
                                 compressedData: any ByteStream, permissions: UInt32 = 0o644,
                                 modified: Int64? = nil) throws(ZipError) -> WrittenEntry {
        try addPrecompressed(name, method: method, crc32: crc32, uncompressedSize: uncompressedSize,
                             permissions: permissions, modified: modified) { () throws(ZipError) in
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
            defer { chunk.deallocate() }
            while true {
                let count = try compressedData.read(into: chunk)
                if count == 0 { return }
                try output.write(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            }
        }
    }

    private func addPrecompressed(_ name: String, method: CompressionMethod, crc32: UInt32, uncompressedSize: UInt64,
                                  permissions: UInt32, modified: Int64?,
                                  copy: () throws(ZipError) -> Void) throws(ZipError) -> WrittenEntry {
        let spec = EntrySpec(name: name, method: method, mode: 0o100000 | normalized(permissions, directory: false),
                             modified: modified, dosDirectory: false, level: 0)
        return try write(spec, sizeHint: uncompressedSize) { () throws(ZipError) -> (crc: UInt32, size: UInt64) in
            let start = output.position
            do throws(ZipError) {
                try copy()
            } catch {
                throw error.inArchive(path).forEntry(name)
            }
            if method == .stored && output.position - start != uncompressedSize {
                throw ZipError(.invalidArgument, "stored data is \(output.position - start) bytes, but its size was given as \(uncompressedSize)",
                               archive: path, entry: name)
            }
            return (crc32, uncompressedSize)
        }
    }
}
