import AssetPackSystem
import AssetPackZip

/// Puts the blocks of one block-indexed delivered file into its staging file (``DeliveredFileWriter``): each
/// block from the staging file itself (kept by an interrupted run), from local bytes that hash the same
/// (``ChunkSeeds``: the installed copy, a seed folder), or from the delivery, and in every case only bytes that
/// hash to the block's SHA-256. Blocks to deliver whose compressed bytes are adjacent in the archive come in one
/// request (``Unit/delivery(_:)``), up to the delivery's ``DeliveryCoalescing/maximumSpan``.
struct BlockwiseWriter {
    let file: Descriptor
    let blocks: [DeliveredLayout.Block]
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

    /// One step of putting the blocks in place.
    enum Unit {
        /// Block `number`, kept from an interrupted run.
        case staged(Int)
        /// Block `number`, copied from local bytes.
        case local(Int, ChunkSeeds.Piece)
        /// The blocks `numbers` (consecutive, adjacent in the archive), in one request.
        case delivery([Int])

    }

    /// What to do for each block of `layout`'s `blocks`: those `kept` (an interrupted run's journal records them)
    /// whose bytes in `staged` still hash right are kept, those `seeds` hold are copied, the others are delivered,
    /// adjacent ones together. Reads, never writes: the install asks it before writing, a dry run to count requests.
    static func plan(_ blocks: [DeliveredLayout.Block], kept: Set<Int>, staged: Descriptor?, seeds: ChunkSeeds,
                     delivery: any BundleDelivery) throws(AssetPackError) -> [Unit] {
        var units: [Unit] = [], run: [Int] = []
        let span = delivery.coalescing.maximumSpan
        func endRun() {
            if !run.isEmpty { units.append(.delivery(run)) }
            run = []
        }
        for (number, block) in blocks.enumerated() {
            if kept.contains(number), let staged,
               try BlockBytes.sha256(of: staged, block.uncompressed, with: delivery.makeHasher()) == block.sha256 {
                units.append(.staged(number))
            } else if let piece = seeds[block.sha256] {
                units.append(.local(number, piece))
            } else {
                if let first = run.first, let last = run.last, blocks[last].compressed.upperBound != block.compressed.lowerBound
                    || block.compressed.upperBound - blocks[first].compressed.lowerBound > span {
                    endRun()
                }
                run.append(number)
                continue
            }
            endRun()
        }
        endRun()
        return units
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
            guard try BlockBytes.copy(piece, to: file, at: blocks[number].uncompressed.lowerBound, with: delivery.makeHasher())
                == blocks[number].sha256 else {  // the local file changed since it was hashed
                return try write(.delivery([number]), archive: archive, done: done)
            }
            tracker?.advance(bytes: UInt64(blocks[number].uncompressed.count))
            try done(number)
        case .delivery(let numbers):
            // Consecutive chunks are one deflate stream: decoded in one pass, each chunk's bytes checked on their own.
            let segments = numbers.map { number in
                StagedFileSink.Segment(start: blocks[number].uncompressed.lowerBound, size: UInt64(blocks[number].uncompressed.count),
                                       check: check(for: number))
            }
            let sink = try StagedFileSink(file: file, segments: segments, inflating: deflated, endsStream: blocks[numbers[numbers.count - 1]].isLast,
                                          progress: tracker) { (index) throws(AssetPackError) in try done(numbers[index]) }
            try delivery.deliver(Self.request(numbers, of: blocks, in: archive), into: sink)
        }
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
