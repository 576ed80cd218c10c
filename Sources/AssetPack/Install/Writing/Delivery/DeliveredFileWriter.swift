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
        let writer = BlockwiseWriter(file: file, blocks: blocks, patches: layout.patches, deflated: layout.deflated, delivery: bundle.delivery, path: item.path,
                                     origin: origin, progress: progress, tracker: tracker)
        var opened = kept.isEmpty ? nil : try BlockJournal.open(for: item.path.name, in: folder)
        if opened == nil { opened = try BlockJournal.create(for: item.path.name, in: folder) }
        let journal = opened
        let units = try BlockwiseWriter.plan(blocks, patches: layout.patches, kept: kept, staged: file, seeds: bundle.seeds(for: item.path, layout: layout, blocks: blocks),
                                             delivery: bundle.delivery)
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

/// Where the bytes of one delivered file, or of a run of its chunks, go: into the staging file at their offsets
/// (one segment per chunk, each following the one before in the file: consecutive chunks are one deflate stream,
/// decoded in one pass and written in the inflater's pieces), inflated on the way when
/// the bundle stores them deflated, and passed through each segment's ``WriteCheck`` as they are written; a segment
/// that checks out is reported at once (`segmentDone`: a journal records its chunk). ``finish()`` accepts the bytes
/// only when every check does; damage found on the way (a stream that does not inflate, too many bytes) is reported
/// there too, as ``AssetPackError/Code/verification``, which makes the delivery fetch the bytes again.
/// Memory: one 256 KiB buffer and one inflater.
final class StagedFileSink: DeliverySink {
    /// Where one segment of the output goes, how long it is, and its check.
    struct Segment {
        let start: UInt64
        let size: UInt64
        var check: WriteCheck
    }

    private let file: Descriptor
    private var segments: [Segment]
    /// The segment the next output bytes belong to.
    private var current = 0
    private let segmentDone: (Int) throws(AssetPackError) -> Void
    private let inflater: Inflater?
    /// Whether the data is a deflate stream that must end with its final block (a whole entry, or a run of chunks
    /// that ends the file; other runs end with a flush instead).
    private let endsStream: Bool
    private let progress: ProgressTracker?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
    private var ended = false
    private var damage: AssetPackError?

    /// A sink writing `segments` of `file` in order, each through its check; `inflating` when the bytes are
    /// deflated; `progress`, when given, is told about every byte written; `segmentDone` of each segment that
    /// checked out.
    init(file: Descriptor, segments: [Segment], inflating: Bool, endsStream: Bool, progress: ProgressTracker?,
         segmentDone: @escaping (Int) throws(AssetPackError) -> Void = { _ in }) throws(AssetPackError) {
        precondition(!segments.isEmpty, "a sink writes at least one segment")
        self.file = file
        self.segments = segments
        self.endsStream = endsStream
        self.progress = progress
        self.segmentDone = segmentDone
        do { inflater = inflating ? try Inflater() : nil } catch { throw segments[0].check.failure(error) }
    }

    /// A sink writing into `file` from `start`, through `check` (of `size` bytes): one segment.
    convenience init(file: Descriptor, at start: UInt64, size: UInt64, check: WriteCheck, inflating: Bool, endsStream: Bool,
                     progress: ProgressTracker?) throws(AssetPackError) {
        try self.init(file: file, segments: [Segment(start: start, size: size, check: check)], inflating: inflating,
                      endsStream: endsStream, progress: progress)
    }

    deinit { buffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard damage == nil else { return }
        guard let inflater else { return try put(bytes) }
        var input = bytes
        while true {
            if ended {
                if !input.isEmpty { damage = streamEnd(found: "more") }
                return
            }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch {
                damage = segments[min(current, segments.count - 1)].check.failure(error)
                return
            }
            input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
            try put(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced]))
            ended = step.finished
            // zlib may hold more output when the buffer filled; otherwise it wants more input.
            if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !ended { return }
        }
    }

    func restart() throws(AssetPackError) {
        inflater?.reset()
        for index in segments.indices { segments[index].check.restart() }
        current = 0
        ended = false
        damage = nil
    }

    func finish() throws(AssetPackError) {
        if let damage { throw damage }
        if endsStream && inflater != nil && !ended { throw streamEnd(found: "none") }
        while current < segments.count {  // a segment still short (or empty) fails, or passes, its own check here
            _ = try segments[current].check.finish()
            try segmentDone(current)
            current += 1
        }
    }

    /// The CRC-32 of what was written to the first segment (once ``finish()`` accepted it).
    var crc32: UInt32 { segments[0].check.crc32 }

    /// Checks output bytes against the segments they belong to and writes them in one piece (the segments follow
    /// each other in the file), then reports the segments they completed.
    private func put(_ chunk: UnsafeRawBufferPointer) throws(AssetPackError) {
        var rest = chunk, completed: [Int] = []
        let at = segments[min(current, segments.count - 1)].start + segments[min(current, segments.count - 1)].check.written
        while !rest.isEmpty, damage == nil {
            guard current < segments.count else {  // more than the last segment holds: its check says so
                do { try segments[segments.count - 1].check.take(rest) } catch { damage = error }
                if damage == nil { damage = segments[segments.count - 1].check.failure(CheckedStream.mismatch("data", expected: "its end", found: "more")) }
                break
            }
            let room = segments[current].size - min(segments[current].size, segments[current].check.written)
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<(room == 0 ? rest.count : Int(min(UInt64(rest.count), room)))])
            do { try segments[current].check.take(piece) } catch {
                damage = error
                break
            }
            rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
            if segments[current].check.written == segments[current].size {
                do { _ = try segments[current].check.finish() } catch {
                    damage = error
                    break
                }
                completed.append(current)
                current += 1
            }
        }
        let accepted = UnsafeRawBufferPointer(rebasing: chunk[..<(chunk.count - rest.count)])
        guard !accepted.isEmpty else { return }
        try io(file.fd.writeAll(accepted, at: at, path: file.path))
        progress?.advance(bytes: UInt64(accepted.count))
        for index in completed { try segmentDone(index) }
    }

    /// The mismatch of a deflate stream that does not end where it must: `found` is what came instead.
    private func streamEnd(found: String) -> AssetPackError {
        segments[min(current, segments.count - 1)].check.failure(CheckedStream.mismatch("deflate stream", expected: "its end", found: found))
    }
}
