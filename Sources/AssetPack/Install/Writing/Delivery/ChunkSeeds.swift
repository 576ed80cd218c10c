import AssetPackSystem

/// The local bytes that can stand in for blocks of one block-indexed delivered file, found by content: the
/// file at the same path in the installed tree and in each seed folder (``DeliveredBundleSource/seedFolders``),
/// cut by the file's chunking rule (``DeliveredLayout/chunking``) and each chunk the file wants hashed, so that a
/// chunk moved by an insertion or a deletion is found at its new offset. For blocks of a fixed size (format 2)
/// the candidates' bytes at each block's own offsets are hashed instead.
///
/// Only chunks whose length some wanted block has are hashed. Nothing here is trusted: the bytes are hashed
/// again as they are copied (``BlockwiseWriter``), since the files may change meanwhile.
struct ChunkSeeds {
    /// A place holding a block's bytes.
    struct Piece {
        let file: Descriptor
        let range: Range<UInt64>
    }

    /// The pieces found, by SHA-256.
    private(set) var pieces: [String: Piece] = [:]
    /// The first candidate as long as the previous version the file's patches apply to
    /// (``DeliveredLayout/patches``): most likely that version, and checked as any patch's output is.
    private(set) var base: Descriptor?
    /// The first candidate found (the installed copy when there is one): what the staging file may start as a clone of.
    private(set) var first: Descriptor?

    /// The piece holding bytes with SHA-256 `sha256`, when a candidate has them.
    subscript(sha256: String) -> Piece? { pieces[sha256] }

    /// The seeds of the delivered file `path` laid out as `layout` (with blocks): its copies in `folders` (the
    /// installed tree first), read to hash the chunks `layout` wants, with `makeHasher`'s hashers.
    static func find(for path: AssetPath, layout: DeliveredLayout, blocks: [DeliveredLayout.Block], in folders: [String],
                     hasher makeHasher: () -> any ContentHasher) throws(AssetPackError) -> ChunkSeeds {
        var seeds = ChunkSeeds()
        var wanted = Set(blocks.map(\.sha256))
        for folder in folders {
            guard !wanted.isEmpty, let file = open(path, in: folder) else { continue }
            if seeds.first == nil { seeds.first = file }
            if seeds.base == nil, let size = layout.patches?.baseSize, (try? file.fd.status(path: file.path))?.size == size {
                seeds.base = file
            }
            if let chunking = layout.chunking {
                try seeds.add(chunksOf: file, by: chunking, wanted: &wanted, lengths: Set(blocks.map { Int($0.uncompressed.count) }))
            } else {
                for block in blocks where wanted.contains(block.sha256) {
                    guard try BlockBytes.sha256(of: file, block.uncompressed, with: makeHasher()) == block.sha256 else { continue }
                    seeds.pieces[block.sha256] = Piece(file: file, range: block.uncompressed)
                    wanted.remove(block.sha256)
                }
            }
        }
        return seeds
    }

    /// Cuts `file` by `chunking` and keeps the chunks `wanted` lists (hashing only those whose length is in `lengths`).
    private mutating func add(chunksOf file: Descriptor, by chunking: ContentChunking, wanted: inout Set<String>,
                              lengths: Set<Int>) throws(AssetPackError) {
        var offset: UInt64 = 0
        let chunks = try FileChunks.scan(by: chunking, hashesFile: false, hashes: { lengths.contains($0) }) { (buffer) throws(AssetPackError) -> Int in
            let count = try io(file.fd.read(at: offset, into: buffer, path: file.path))
            offset += UInt64(count)
            return count
        }
        for (start, (length, sha256)) in zip(chunks.offsets, zip(chunks.lengths, chunks.sha256)) {
            guard let sha256, wanted.remove(sha256) != nil else { continue }
            pieces[sha256] = Piece(file: file, range: start..<start + UInt64(length))
        }
    }

    /// The regular file at `path` below `tree` (no link followed), when it is there; nil otherwise.
    private static func open(_ path: AssetPath, in tree: String) -> Descriptor? {
        guard let root = try? Descriptor.existingDirectory(atPath: tree),
              let folder = try? root.existingDirectory(at: path.parent.components),
              let status = try? folder.status(path.name), status.kind == .file,
              let file = try? folder.openFile(path.name) else { return nil }
        return file
    }
}
