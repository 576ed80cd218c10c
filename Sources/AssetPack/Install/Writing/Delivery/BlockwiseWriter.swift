import AssetPackSystem
import AssetPackZip

/// Puts the blocks of one block-indexed delivered file into its staging file (``DeliveredFileWriter``): each
/// block from the staging file itself (kept by an interrupted run), from local bytes that hash the same
/// (``ChunkSeeds``: the installed copy, a seed folder), from a patch applied to the file's previous version (``PatchSink``)
/// when a local copy is as long as that version, or from the delivery, and in every case only bytes that hash to the
/// block's SHA-256. Blocks to deliver whose compressed bytes are adjacent in the archive come in one request
/// (``Unit/delivery(_:)``), and so do patches adjacent in their file (``Unit/patched(_:base:)``), up to the delivery's
/// ``DeliveryCoalescing/maximumSpan``.
struct BlockwiseWriter {
    let file: Descriptor
    let blocks: [DeliveredLayout.Block]
    /// The file's patches, when its manifest entry has them.
    let patches: DeliveredLayout.Patches?
    /// Whether the blocks' bytes are deflated.
    let deflated: Bool
    let delivery: any BundleDelivery
    /// The file's path in the tree.
    let path: AssetPath
    /// Where its bytes come from: the bundle's file.
    let origin: ErrorLocation
    let progress: ProgressTracker
    /// `progress` when it counts bytes of this file, else nil.
    let tracker: ProgressTracker?
    /// The local copy the staging file started as a clone of (sharing its blocks), when it did: a block it holds at
    /// the block's own offset is then checked where it is, not copied.
    let clonedFrom: Descriptor?

    /// One step of putting the blocks in place.
    enum Unit {
        /// Block `number`, kept from an interrupted run.
        case staged(Int)
        /// Block `number`, copied from local bytes.
        case local(Int, ChunkSeeds.Piece)
        /// The blocks `numbers` (consecutive, adjacent in the archive), in one request.
        case delivery([Int])
        /// The blocks of the patches `runs` (their indexes; adjacent in the patch file), made from `base` by patches
        /// fetched in one request.
        case patched([Int], base: Descriptor)
    }

    /// What to do for each block of `layout`'s `blocks`: those `kept` (an interrupted run's journal records them)
    /// whose bytes in `staged` still hash right are kept, those `seeds` hold are copied, those a patch of `patches`
    /// makes (all of its blocks missing, and a seed as long as the version it applies to) are patched, the others are
    /// delivered, adjacent ones together. Reads, never writes: the install asks it before writing, a dry run to count
    /// requests.
    static func plan(_ blocks: [DeliveredLayout.Block], patches: DeliveredLayout.Patches?, kept: Set<Int>, staged: Descriptor?,
                     seeds: ChunkSeeds, delivery: any BundleDelivery) throws(AssetPackError) -> [Unit] {
        var units: [Unit] = [], missing: [Int] = []
        for (number, block) in blocks.enumerated() {
            if kept.contains(number), let staged,
               try BlockBytes.sha256(of: staged, block.uncompressed, with: delivery.makeHasher()) == block.sha256 {
                units.append(.staged(number))
            } else if let piece = seeds.piece(for: block) {
                units.append(.local(number, piece))
            } else {
                missing.append(number)
            }
        }
        var patched = Set<Int>()
        if let patches, let base = seeds.base {
            let wanted = Set(missing)
            let usable = patches.runs.indices.filter { patches.runs[$0].chunks.allSatisfy(wanted.contains) }
            for group in coalesced(usable, range: { patches.runs[$0].bytes }, span: delivery.coalescing.maximumSpan) {
                units.append(.patched(group, base: base))
                for run in group { patched.formUnion(patches.runs[run].chunks) }
            }
        }
        let delivered = missing.filter { !patched.contains($0) }
        units += deliveries(delivered, of: blocks, span: delivery.coalescing.maximumSpan)
        return units
    }

    /// `numbers` (ascending) in runs of consecutive blocks adjacent in the archive, each spanning at most `span` bytes.
    private static func deliveries(_ numbers: [Int], of blocks: [DeliveredLayout.Block], span: UInt64) -> [Unit] {
        var runs: [[Int]] = []
        for number in numbers {
            if let run = runs.last, let last = run.last, last + 1 == number,
               blocks[last].compressed.upperBound == blocks[number].compressed.lowerBound,
               blocks[number].compressed.upperBound - blocks[run[0]].compressed.lowerBound <= span {
                runs[runs.count - 1].append(number)
            } else {
                runs.append([number])
            }
        }
        return runs.map { .delivery($0) }
    }

    /// `items` (ascending) in groups whose `range`s follow each other without a gap, each spanning at most `span` bytes.
    private static func coalesced(_ items: [Int], range: (Int) -> Range<UInt64>, span: UInt64) -> [[Int]] {
        var groups: [[Int]] = []
        for item in items {
            if let group = groups.last, range(group[group.count - 1]).upperBound == range(item).lowerBound,
               range(item).upperBound - range(group[0]).lowerBound <= span {
                groups[groups.count - 1].append(item)
            } else {
                groups.append([item])
            }
        }
        return groups
    }

    /// The request for the blocks `numbers` (consecutive and adjacent) of `blocks`, in the archive `file`.
    static func request(_ numbers: [Int], of blocks: [DeliveredLayout.Block], in file: String) -> DeliveryRequest {
        let range = blocks[numbers[0]].compressed.lowerBound..<blocks[numbers[numbers.count - 1]].compressed.upperBound
        return DeliveryRequest(file: file, range: range, length: UInt64(range.count))
    }

    /// Carries out `unit`; `archive`: the bundle file the blocks are in; `done` is told of each block written and
    /// checked, as soon as it is (a block of a request is recorded before the request ends).
    func write(_ unit: Unit, archive: String, done: @escaping (Int) throws(AssetPackError) -> Void) throws(AssetPackError) {
        switch unit {
        case .staged(let number):
            progress.resumed(bytes: tracker == nil ? 0 : UInt64(blocks[number].uncompressed.count))
        case .local(let number, let piece):
            if let clonedFrom, piece.file === clonedFrom, piece.range.lowerBound == blocks[number].uncompressed.lowerBound,
               try BlockBytes.sha256(of: file, blocks[number].uncompressed, with: delivery.makeHasher()) == blocks[number].sha256 {
                tracker?.advance(bytes: UInt64(blocks[number].uncompressed.count))
                return try done(number)
            }
            guard try BlockBytes.copy(piece, to: file, at: blocks[number].uncompressed.lowerBound, with: delivery.makeHasher())
                == blocks[number].sha256 else {  // the local file changed since it was hashed
                return try write(.delivery([number]), archive: archive, done: done)
            }
            tracker?.advance(bytes: UInt64(blocks[number].uncompressed.count))
            try done(number)
        case .patched(let runs, let base):
            try patch(runs, from: base, archive: archive, done: done)
        case .delivery(let numbers):
            // Each chunk decoded whole once its bytes are in, its bytes checked on their own.
            let encoding: StagedFileSink.Encoding = deflated
                ? .deflatedPieces(numbers.map { blocks[$0].compressed.count }, endsStream: blocks[numbers[numbers.count - 1]].isLast) : .stored
            let sink = try StagedFileSink(file: file, segments: numbers.map(segment), encoding: encoding,
                                          progress: tracker) { (index) throws(AssetPackError) in try done(numbers[index]) }
            try delivery.deliver(Self.request(numbers, of: blocks, in: archive), into: sink)
        }
    }

    /// The request for the patches `runs` (indexes, adjacent in the patch file) of `patches`.
    static func request(patches runs: [Int], of patches: DeliveredLayout.Patches) -> DeliveryRequest {
        let range = patches.runs[runs[0]].bytes.lowerBound..<patches.runs[runs[runs.count - 1]].bytes.upperBound
        return DeliveryRequest(file: patches.file, range: range, length: UInt64(range.count))
    }

    /// Makes the blocks of the patches `runs` from `base` with the patches fetched in one request; the blocks of a patch
    /// that did not make them, or of all when the patch file is missing or its bytes never arrive whole, are then
    /// delivered as blocks from `archive`.
    private func patch(_ runs: [Int], from base: Descriptor, archive: String, done: @escaping (Int) throws(AssetPackError) -> Void) throws(AssetPackError) {
        guard let patches else { return }
        let chunks = runs.map { patches.runs[$0].chunks }
        let sink = try PatchSink(runs: zip(runs, chunks).map { run, chunks in
            PatchSink.Run(bytes: patches.runs[run].bytes,
                          output: blocks[chunks.lowerBound].uncompressed.lowerBound..<blocks[chunks.upperBound - 1].uncompressed.upperBound)
        }, base: base, baseSize: patches.baseSize, inPlace: clonedFrom === base) { (index) throws(AssetPackError) -> StagedFileSink in
            let numbers = Array(chunks[index])
            return try StagedFileSink(file: file, segments: numbers.map(segment), encoding: .stored,
                                      progress: tracker) { (segment) throws(AssetPackError) in try done(numbers[segment]) }
        }
        var failed: [Int]
        do {
            try delivery.deliver(Self.request(patches: runs, of: patches), into: sink)
            failed = sink.failed.sorted().flatMap { Array(chunks[$0]) }
        } catch where error.code == .notFound || error.code == .verification {
            failed = chunks.flatMap { Array($0) }  // the patch file is missing or damaged: its chunks are whole
        }
        for unit in Self.deliveries(failed, of: blocks, span: delivery.coalescing.maximumSpan) {
            try write(unit, archive: archive, done: done)
        }
    }

    /// The segment of the staging file that block `number` fills, with its check.
    private func segment(_ number: Int) -> StagedFileSink.Segment {
        StagedFileSink.Segment(start: blocks[number].uncompressed.lowerBound, size: UInt64(blocks[number].uncompressed.count),
                               check: check(for: number))
    }

    /// The check of block `number`'s bytes against its SHA-256.
    private func check(for number: Int) -> WriteCheck {
        WriteCheck(path: path, size: UInt64(blocks[number].uncompressed.count), crc32: nil, sha256: blocks[number].sha256,
                   hasher: delivery.makeHasher(), claim: "recorded in the manifest for block \(number)", origin: origin)
    }
}

/// Reading a byte range of an open file, 256 KiB at a time.
enum BlockBytes {
    /// The SHA-256 of bytes `range` of `file`, computed with `hasher`, or nil when the file ends before the
    /// range does.
    static func sha256(of file: Descriptor, _ range: Range<UInt64>, with hasher: any ContentHasher) throws(AssetPackError) -> String? {
        let complete = try read(range, of: file) { chunk, _ throws(AssetPackError) in hasher.update(chunk) }
        return complete ? hasher.finalizeHex() : nil
    }

    /// Copies the bytes of `piece` to `target` from `offset` on, hashing them with `hasher`; their SHA-256, or
    /// nil when the file ends before the piece does.
    static func copy(_ piece: ChunkSeeds.Piece, to target: Descriptor, at offset: UInt64,
                     with hasher: any ContentHasher) throws(AssetPackError) -> String? {
        let complete = try read(piece.range, of: piece.file) { chunk, at throws(AssetPackError) in
            hasher.update(chunk)
            try io(target.fd.writeAll(chunk, at: offset + (at - piece.range.lowerBound), path: target.path))
        }
        return complete ? hasher.finalizeHex() : nil
    }

    /// Hands `body` the bytes of `range` in order with their offsets; false when the file ends first.
    private static func read(_ range: Range<UInt64>, of file: Descriptor,
                             _ body: (UnsafeRawBufferPointer, UInt64) throws(AssetPackError) -> Void) throws(AssetPackError) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(UInt64(buffer.count), range.upperBound - offset))])
            let count = try io(file.fd.read(at: offset, into: wanted, path: file.path))
            if count == 0 { return false }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), offset)
            offset += UInt64(count)
        }
        return true
    }
}
