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

    /// The pieces found, by SHA-256 (the first candidate's first).
    private(set) var pieces: [String: Piece] = [:]
    /// The first candidate's pieces that some block wants, by offset: a block is taken from its own offset when the
    /// first candidate holds it there (a file whose content repeats has the same chunk at several offsets), which a
    /// staging file cloned from that candidate already holds.
    private var firstCandidate: [UInt64: (sha256: String, piece: Piece)] = [:]
    /// The first candidate as long as the previous version the file's patches apply to
    /// (``DeliveredLayout/patches``): most likely that version, and checked as any patch's output is.
    private(set) var base: Descriptor?
    /// The first candidate found (the installed copy when there is one): what the staging file may start as a clone of.
    private(set) var first: Descriptor?

    /// The piece holding `block`'s bytes (SHA-256), when a candidate has them: at the block's own offset in the first
    /// candidate when it is there.
    func piece(for block: DeliveredLayout.Block) -> Piece? {
        if let found = firstCandidate[block.uncompressed.lowerBound], found.sha256 == block.sha256 { return found.piece }
        return pieces[block.sha256]
    }

    /// The seeds of the delivered file `path` laid out as `layout` (with blocks): its copies in `folders` (the
    /// installed tree first), read to hash the chunks `layout` wants, with `makeHasher`'s hashers.
    static func find(for path: AssetPath, layout: DeliveredLayout, blocks: [DeliveredLayout.Block], in folders: [String],
                     hasher makeHasher: () -> any ContentHasher) throws(AssetPackError) -> ChunkSeeds {
        var seeds = ChunkSeeds()
        let all = Set(blocks.map(\.sha256))
        var wanted = all
        for folder in folders {
            guard !wanted.isEmpty, let file = open(path, in: folder) else { continue }
            if seeds.first == nil { seeds.first = file }
            if seeds.base == nil, let size = layout.patches?.baseSize, (try? file.fd.status(path: file.path))?.size == size {
                seeds.base = file
            }
            if let chunking = layout.chunking {
                try seeds.add(chunksOf: file, by: chunking, all: all, wanted: &wanted, lengths: Set(blocks.map { Int($0.uncompressed.count) }))
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

    /// Cuts `file` by `chunking` and keeps the chunks `wanted` lists (hashing only those whose length is in `lengths`),
    /// and of the first candidate those `all` lists, by offset.
    private mutating func add(chunksOf file: Descriptor, by chunking: ContentChunking, all: Set<String>, wanted: inout Set<String>,
                              lengths: Set<Int>) throws(AssetPackError) {
        var offset: UInt64 = 0
        let chunks = try FileChunks.scan(by: chunking, hashesFile: false, hashes: { lengths.contains($0) }) { (buffer) throws(AssetPackError) -> Int in
            let count = try io(file.fd.read(at: offset, into: buffer, path: file.path))
            offset += UInt64(count)
            return count
        }
        for (start, (length, sha256)) in zip(chunks.offsets, zip(chunks.lengths, chunks.sha256)) {
            guard let sha256, all.contains(sha256) else { continue }
            let piece = Piece(file: file, range: start..<start + UInt64(length))
            if file === first { firstCandidate[start] = (sha256, piece) }
            if wanted.remove(sha256) != nil { pieces[sha256] = piece }
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
