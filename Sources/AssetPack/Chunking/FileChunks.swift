/// The content-defined chunks (``ContentChunking``) of a file, found in one front-to-back read: each chunk's
/// length and, when asked, its SHA-256, and the whole file's SHA-256.
package struct FileChunks: Sendable, Equatable {
    /// The chunks' lengths, in order (one chunk, possibly empty, for a file shorter than a chunk's minimum).
    package var lengths: [Int] = []
    /// The SHA-256 of each chunk (64 hex digits), nil for a chunk that was not hashed.
    package var sha256: [String?] = []
    /// The SHA-256 of the whole, when it was asked for.
    package var fileSHA256: String?

    /// Where each chunk starts.
    package var offsets: [UInt64] {
        var offset: UInt64 = 0
        return lengths.map { length in
            defer { offset += UInt64(length) }
            return offset
        }
    }

    /// The `[uncompressed, compressed]` pairs of a chunk index for data stored as it is
    /// (`BundleManifest/Storage/blocks`).
    package var storedPairs: [[UInt64]] { offsets.map { [$0, $0] } }

    /// Cuts the bytes `read` hands out (into the buffer given, returning how many; 0 at the end) by `chunking`,
    /// hashing the chunks whose length `hashes` accepts, and the whole when `hashesFile`.
    package static func scan(by chunking: ContentChunking, hashesFile: Bool, hashes: (Int) -> Bool = { _ in true },
                             read: (UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int) throws(AssetPackError) -> FileChunks {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var scanner = ChunkScanner(chunking), chunks = FileChunks()
        var file = hashesFile ? SHA256() : nil
        // The chunk's bytes are hashed only once its length is known; until then they are kept in `pending`
        // (at most ``ContentChunking/maximum`` bytes).
        var pending: [UInt8] = []
        pending.reserveCapacity(chunking.maximum)
        func end(_ length: Int) {
            chunks.lengths.append(length)
            if hashes(length) {
                var chunk = SHA256()
                pending.withUnsafeBytes { chunk.update($0) }
                chunks.sha256.append(chunk.finalizeHex())
            } else {
                chunks.sha256.append(nil)
            }
            pending.removeAll(keepingCapacity: true)
        }
        while true {
            let count = try read(buffer)
            if count == 0 { break }
            var rest = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            file?.update(rest)
            while let taken = scanner.boundary(in: rest) {
                pending.append(contentsOf: rest[..<taken])
                end(pending.count)
                rest = UnsafeRawBufferPointer(rebasing: rest[taken...])
            }
            pending.append(contentsOf: rest)
        }
        if !pending.isEmpty || chunks.lengths.isEmpty { end(pending.count) }
        chunks.fileSHA256 = file?.finalizeHex()
        return chunks
    }
}
