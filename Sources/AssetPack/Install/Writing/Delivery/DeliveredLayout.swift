import AssetPackZip

/// How a delivered file is stored, read from its manifest entry: what to ask the delivery for.
struct DeliveredLayout: Sendable {
    /// One block of a block-indexed file: where its bytes go, where its compressed bytes are in the
    /// archive, and their SHA-256.
    struct Block: Sendable {
        var uncompressed: Range<UInt64>
        var compressed: Range<UInt64>
        var sha256: String
        var isLast: Bool
    }

    /// The whole stored file, or the packed entry's compressed bytes.
    var whole: DeliveryRequest
    /// Whether those bytes are deflated.
    var deflated: Bool
    /// The blocks, for a packed entry with a block index and block hashes; nil otherwise.
    var blocks: [Block]?
    /// The rule that cut the blocks, when they are content-defined chunks; nil for blocks of a fixed size.
    var chunking: ContentChunking?
    /// The patches from the file's previous version to runs of its chunks, when the manifest has them.
    var patches: Patches?

    /// Patches from a file's previous version (``BundleManifest/Storage/patches``).
    struct Patches: Sendable {
        /// One patch: the chunks it makes, and where its bytes are in ``file``.
        struct Run: Sendable {
            var chunks: Range<Int>
            var bytes: Range<UInt64>
        }

        /// The bundle file holding them.
        var file: String
        /// Bytes of the previous version they apply to.
        var baseSize: UInt64
        /// In order of chunks and of bytes, none overlapping.
        var runs: [Run]

        /// The patches `patches` of a file of `chunks` chunks; throws `.manifest` for runs out of order or out of range.
        init(_ patches: BundleManifest.Storage.Patches, chunks: Int, entry: String, origin: String) throws(AssetPackError) {
            (file, baseSize) = (patches.file, patches.baseSize)
            runs = []
            for run in patches.runs where run.count == 4 {
                guard run[0] <= UInt64(chunks), run[1] <= UInt64(chunks) - run[0], run[2] <= UInt64.max - run[3],
                      runs.last.map({ $0.chunks.upperBound <= Int(run[0]) && $0.bytes.upperBound <= run[2] }) ?? true else {
                    throw AssetPackError(.manifest, "manifest entry \"\(entry)\" has a patch for chunks \(run[0]) to \(run[0] &+ run[1]) "
                                         + "of \(chunks), or out of order", path: origin)
                }
                runs.append(Run(chunks: Int(run[0])..<Int(run[0] + run[1]), bytes: run[2]..<run[2] + run[3]))
            }
        }
    }

    /// Throws `.manifest` for storage that cannot be delivered: a packed entry without ``BundleManifest/Storage/dataOffset``
    /// (a bundle built before it: build it again), an unknown method, or a block index that does not fit.
    init(_ entry: BundleManifest.Entry, origin: String) throws(AssetPackError) {
        guard let storage = entry.storage, let size = entry.size else {
            throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" lacks size or storage", path: origin)
        }
        chunking = storage.chunking.flatMap(ContentChunking.init(name:))
        guard storage.form == .packed else {
            whole = DeliveryRequest(file: storage.file, range: nil, length: size)
            deflated = false
            return
        }
        guard let offset = storage.dataOffset, let compressed = storage.compressedSize,
              offset <= UInt64.max - compressed, storage.method == "stored" || storage.method == "deflate" else {
            throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" lacks the data offset, compressed size or a known "
                                 + "method that a delivered bundle needs (build the bundle again)", path: origin)
        }
        whole = DeliveryRequest(file: storage.file, range: offset..<offset + compressed, length: compressed)
        deflated = storage.method == "deflate"
        if let pairs = storage.blocks, let hashes = storage.blockSHA256 {
            guard deflated || pairs.allSatisfy({ $0.count == 2 && $0[0] == $0[1] }) else {
                throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" is stored but its blocks' offsets differ", path: origin)
            }
            let blocks = try Self.blocks(pairs, hashes, size: size, compressed: compressed, offset: offset, origin: origin)
            self.blocks = blocks
            if chunking != nil, let patches = storage.patches {
                self.patches = try Patches(patches, chunks: blocks.count, entry: entry.path, origin: origin)
            }
        }
    }

    private static func blocks(_ pairs: [[UInt64]], _ hashes: [String], size: UInt64, compressed: UInt64, offset: UInt64,
                               origin: String) throws(AssetPackError) -> [Block] {
        let spans: [DeflateBlockIndex.Span]
        do {
            spans = try DeflateBlockIndex(pairs: pairs).spans(uncompressedSize: size, compressedSize: compressed)
        } catch {
            throw AssetPackError(.manifest, "a block index does not fit its entry: \(error.message)", path: origin)
        }
        guard spans.count == hashes.count else {
            throw AssetPackError(.manifest, "\(spans.count) blocks but \(hashes.count) block hashes", path: origin)
        }
        return zip(spans, hashes).map { span, hash in
            Block(uncompressed: span.uncompressed, compressed: offset + span.compressed.lowerBound..<offset + span.compressed.upperBound,
                  sha256: hash, isLast: span.isLast)
        }
    }
}
