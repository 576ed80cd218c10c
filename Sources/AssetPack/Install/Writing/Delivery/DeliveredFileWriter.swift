import AssetPackSystem
import AssetPackZip

/// Writes one file of a ``DeliveredBundleSource`` into the staging tree, for ``FileMaterializer`` (which
/// created the file, and gives it its permissions once this returned).
///
/// - A file without a block index is one delivery: the plain file (one `GET`), or the packed entry's
///   compressed bytes (one range of its archive, from ``BundleManifest/Storage/dataOffset``), inflated into the
///   file as they arrive; size, CRC-32 and SHA-256 are checked by its ``StagedFileSink``'s ``WriteCheck``.
/// - A file with a block index and block hashes (content-defined chunks, or blocks of a fixed size) is written
///   block by block (several at once, up to the delivery's ``BundleDelivery/concurrency``), each checked against
///   its SHA-256 and then recorded in the file's ``BlockJournal``: a block the journal records (a killed run) is
///   kept when its bytes still hash right; a block whose bytes a local copy holds (``ChunkSeeds``: the installed
///   copy, a seed folder, at any offset) is copied from it; only the others are delivered, adjacent ones in one
///   range (``BlockwiseWriter``). The file then has the manifest's CRC-32 (read back and computed only when the
///   manifest has none).
enum DeliveredFileWriter {
    /// Writes `item` into `file` (named `item.path.name` in `folder`) and returns its CRC-32 when it is a
    /// file delivered from `bundle`; nil for any other item. `kept`: blocks an interrupted run recorded in the journal.
    static func write(_ item: ExpansionItem, from bundle: DeliveredBundleSource?, into file: Descriptor, in folder: Descriptor,
                      keeping kept: Set<Int>, progress: ProgressTracker, reportsBytes: Bool) throws(AssetPackError) -> UInt32? {
        guard let bundle, case .delivered(let layout) = item.origin else { return nil }
        let origin = ErrorLocation(bundle.name + "/" + layout.whole.file)
        let tracker = reportsBytes ? progress : nil
        guard let blocks = layout.blocks else {
            let sink = try StagedFileSink(file: file, at: 0, size: item.size, check: check(item, bundle, origin: origin),
                                          inflating: layout.deflated, endsStream: true, progress: tracker)
            try bundle.delivery.deliver(layout.whole, into: sink)
            return sink.crc32
        }
        let seeds = try bundle.seeds(for: item.path, layout: layout, blocks: blocks)
        var opened = kept.isEmpty ? nil : try BlockJournal.open(for: item.path.name, in: folder)
        if opened == nil { opened = try BlockJournal.create(for: item.path.name, in: folder) }
        let journal = opened
        let clonedFrom = kept.isEmpty ? try clone(seeds.base ?? seeds.first, into: file, size: item.size) : nil
        let writer = BlockwiseWriter(file: file, blocks: blocks, patches: layout.patches, deflated: layout.deflated, delivery: bundle.delivery,
                                     path: item.path, origin: origin, progress: progress, tracker: tracker, clonedFrom: clonedFrom)
        let units = try BlockwiseWriter.plan(blocks, patches: layout.patches, kept: kept, staged: file, seeds: seeds, delivery: bundle.delivery)
        // Units are independent: several at once (each at its own offsets), as many as the delivery's connections.
        try WorkerThreads.run(count: units.count, jobs: bundle.delivery.concurrency) { (number, _) throws(AssetPackError) in
            try progress.checkCancelled()
            try writer.write(units[number], archive: layout.whole.file) { (block) throws(AssetPackError) in try journal?.record(block) }
        }
        // Every block matched its SHA-256 from the manifest, so the file has the manifest's CRC-32: reading it
        // back to compute it again would prove nothing more. Only a manifest without one makes it computed.
        if let recorded = item.crc32 { return recorded }
        return try FileChecksum.crc32(of: file)
    }

    /// Makes the new staging file `file` a clone of the local copy `source` (sharing its blocks: a reflink on Btrfs,
    /// XFS…), `size` bytes long, so that what an upgrade leaves unchanged is neither copied nor written; returns
    /// `source` when it did, nil when there is none or the file system cannot.
    private static func clone(_ source: Descriptor?, into file: Descriptor, size: UInt64) throws(AssetPackError) -> Descriptor? {
        guard let source, try io(file.fd.cloneContents(of: source.fd, path: file.path)) else { return nil }
        try io(file.fd.truncate(to: size, path: file.path))
        return source
    }

    /// The check of delivered `item` as a whole (size, CRC-32, SHA-256 as its manifest entry records), its
    /// bytes coming from `origin`.
    static func check(_ item: ExpansionItem, _ bundle: DeliveredBundleSource, origin: ErrorLocation) -> WriteCheck {
        WriteCheck(path: item.path, size: item.size, crc32: item.crc32, sha256: item.digest?.hex,
                   hasher: bundle.delivery.makeHasher(), claim: "recorded in the manifest", origin: origin)
    }
}

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
