import AssetPackSystem

/// Inflates one block-deflated entry (written by ``ParallelDeflater``) on several threads: each block of
/// the ``DeflateBlockIndex`` is inflated by a fresh inflater and written with `pwrite` at its offset in
/// the output file, so one large file expands at the speed of several cores.
///
/// The index comes from outside the archive and is not trusted: it is checked against the entry's sizes, and
/// every block must end as the index says and inflate to exactly its bytes; the combined CRC-32 is compared
/// with the entry's before the call returns. No byte is ever written outside the entry's uncompressed size.
///
/// ```swift
/// let inflater = try BlockParallelInflater(archive: archive, entry: entry, index: index)
/// let crc = try inflater.inflate(into: fd, path: "out/huge.bin", jobs: 4)
/// ```
package struct BlockParallelInflater: Sendable {
    /// Where the archive's bytes come from.
    package let source: any RandomAccessSource
    /// The entry's compressed data in ``source``.
    package let dataRange: Range<UInt64>
    /// Bytes the entry inflates to.
    package let uncompressedSize: UInt64
    /// The CRC-32 the inflated bytes must have.
    package let crc32: UInt32
    /// The entry's name, for messages.
    package let entryName: String
    /// The checked blocks.
    package let spans: [DeflateBlockIndex.Span]

    /// An inflater for `entry` of `archive` with the block index `index`.
    /// - Throws: ``ZipError`` naming the entry: `.unsupportedMethod` unless it is deflated, `.encrypted`,
    ///   `.format` for an index that does not fit the entry, `.limitExceeded` when its sizes pass the
    ///   archive's ratio limit, and what reading the local header throws.
    package init(archive: ZipArchive, entry: ZipEntry, index: DeflateBlockIndex) throws(ZipError) {
        do throws(ZipError) {
            try entry.checkReadable()
            guard entry.method == .deflate else {
                throw ZipError(.unsupportedMethod, "a block index needs a deflated entry, not \(entry.method)")
            }
            try archive.limits.checkDeclaredRatio(of: entry)
            try self.init(source: archive.source, dataRange: try archive.dataRange(of: entry),
                          uncompressedSize: entry.uncompressedSize, crc32: entry.crc32, index: index, entryName: entry.name)
        } catch {
            throw error.inArchive(archive.name).forEntry(entry.name)
        }
    }

    /// An inflater for the deflate data at `dataRange` of `source`, which must inflate to
    /// `uncompressedSize` bytes with CRC-32 `crc32`.
    /// - Throws: ``ZipError/Code/format`` when `index` does not fit those sizes or the range lies outside the source.
    package init(source: any RandomAccessSource, dataRange: Range<UInt64>, uncompressedSize: UInt64, crc32: UInt32,
                index: DeflateBlockIndex, entryName: String) throws(ZipError) {
        guard dataRange.upperBound <= source.size else {
            throw ZipError(.truncated, "archive ends inside the entry's data", archive: source.name, entry: entryName)
        }
        do throws(ZipError) {
            spans = try index.spans(uncompressedSize: uncompressedSize, compressedSize: UInt64(dataRange.count))
        } catch {
            throw error.inArchive(source.name).forEntry(entryName)
        }
        self.source = source
        self.dataRange = dataRange
        self.uncompressedSize = uncompressedSize
        self.crc32 = crc32
        self.entryName = entryName
    }

    /// Inflates every block on up to `jobs` threads (the calling thread included) and writes the bytes of
    /// each at its uncompressed offset into `descriptor` with `pwrite`. `progress` is called after each
    /// write with its byte count, from any of the threads; when it returns false the work stops with
    /// ``ZipError/Code/cancelled``. Returns the CRC-32 once every block checked out and the combined CRC-32
    /// matched the entry's.
    ///
    /// Resuming: the blocks in `kept` are taken to be in the file already (written by an earlier call that
    /// was interrupted); they are read back for their CRC-32 instead of inflated (`progress` is called
    /// with 0 between reads, so it can still stop the work), so a kept block that is not what the entry
    /// holds fails the combined check (`.checksum`, or `.truncated` when the file ends inside it) and the
    /// caller starts over.
    /// `blocksWritten` is called with consecutive blocks' numbers once all of their bytes are written and the blocks
    /// checked out, from any of the threads: the caller's journal of what a resume may keep.
    /// - Throws: ``ZipError`` naming the entry: `.corruptData`, `.sizeMismatch`, `.format` or `.truncated`
    ///   for a block that does not decode as the index says, `.checksum` for a CRC-32 mismatch, `.io` when
    ///   reading or writing fails (naming `path`).
    package func inflate(into descriptor: Int32, path: String, jobs: Int, keeping kept: Set<Int> = [],
                        blocksWritten: @Sendable (Range<Int>) -> Void = { _ in },
                        progress: @Sendable (UInt64) -> Bool = { _ in true }) throws(ZipError) -> UInt32 {
        var check = CheckedStream(expecting: .init(size: uncompressedSize, crc32: crc32, claim: "declared in the central directory"))
        do throws(ZipError) {
            // The pipeline's threads hold the closures only while this call runs.
            try withoutActuallyEscaping(progress) { (progress) throws(ZipError) -> Void in
                try withoutActuallyEscaping(blocksWritten) { (blocksWritten) throws(ZipError) -> Void in
                    try inflateBlocks(into: descriptor, path: path, jobs: jobs, kept: kept, blocksWritten: blocksWritten,
                                      progress: progress) { (number, blockCRC) throws(ZipError) in
                        try check.take(crc32: blockCRC, length: UInt64(spans[number].uncompressed.count))
                    }
                }
            }
            return try check.finish()
        } catch {
            throw error.inArchive(source.name).forEntry(entryName)
        }
    }

    /// Inflates the blocks on up to `jobs` threads, small consecutive ones (content-defined chunks) a group at a
    /// time (``BlockGroups``); hands each block's CRC-32 to `done` in block order.
    private func inflateBlocks(into descriptor: Int32, path: String, jobs: Int, kept: Set<Int>,
                               blocksWritten: @escaping @Sendable (Range<Int>) -> Void, progress: @escaping @Sendable (UInt64) -> Bool,
                               done: (Int, UInt32) throws(ZipError) -> Void) throws(ZipError) {
        let tools = ObjectPool { () throws(ZipError) in try BlockTools() }
        let groups = BlockGroups.of(spans, kept: kept)
        let produce: @Sendable (Int) throws(ZipError) -> [UInt32] = { (group) throws(ZipError) -> [UInt32] in
            try tools.withObject { (kit) throws(ZipError) -> [UInt32] in
                let numbers = groups[group]
                do throws(ZipError) {
                    if numbers.count == 1, kept.contains(numbers.lowerBound) {
                        return [try checksumKeptBlock(numbers.lowerBound, with: kit, in: descriptor, path: path, progress: progress)]
                    }
                    if BlockGroups.fits(numbers, of: spans) {
                        let crcs = try inflateGroup(numbers, with: kit, into: descriptor, path: path, progress: progress)
                        blocksWritten(numbers)
                        return crcs
                    }
                    let crc = try inflateBlock(numbers.lowerBound, with: kit, into: descriptor, path: path, progress: progress)
                    blocksWritten(numbers)
                    return [crc]
                } catch where error.code == .sizeMismatch && !error.message.hasPrefix("block ") {
                    var located = error
                    located.message = "block \(numbers.lowerBound): \(error.message)"
                    throw located
                }
            }
        }
        // The CRC-32s are tiny, so the window does not hold the threads back.
        try OrderedPipeline.run(count: groups.count, jobs: jobs, window: groups.count, produce: produce,
                                consume: { (group: Int, crcs: [UInt32]) throws(ZipError) in
            for (number, crc) in zip(groups[group], crcs) { try done(number, crc) }
        })
    }

    /// Inflates the blocks `numbers` (consecutive, ``BlockGroups/fits(_:of:)``) with one read of their compressed bytes
    /// and one journal entry for what they make (written in slices of ``BlockGroups/writeSlice``); each block is
    /// decoded alone, whole, from its own compressed bytes (``PieceInflater``) and must end as the index says, as
    /// ``inflateBlock(_:with:into:path:progress:)`` checks one. Returns their CRC-32s.
    private func inflateGroup(_ numbers: Range<Int>, with kit: BlockTools, into descriptor: Int32, path: String,
                              progress: @Sendable (UInt64) -> Bool) throws(ZipError) -> [UInt32] {
        let first = spans[numbers.lowerBound], last = spans[numbers.upperBound - 1]
        let compressed = Int(last.compressed.upperBound - first.compressed.lowerBound)
        let input = UnsafeMutableRawBufferPointer(rebasing: kit.groupInput[0..<compressed])
        let got = try source.read(into: input, at: dataRange.lowerBound + first.compressed.lowerBound)
        guard got == compressed else {
            throw ZipError(.truncated, "archive ends inside the entry's data", offset: dataRange.lowerBound + first.compressed.lowerBound + UInt64(got))
        }
        var crcs: [UInt32] = [], made = 0
        crcs.reserveCapacity(numbers.count)
        for number in numbers {
            let span = spans[number]
            let start = Int(span.compressed.lowerBound - first.compressed.lowerBound)
            let piece = start..<(start + span.compressed.count)
            if !span.isLast && !input[piece].suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
                throw ZipError(.format, "block \(number) does not end with a full flush where the index says it ends",
                               offset: dataRange.lowerBound + span.compressed.upperBound)
            }
            // The decoder gets all the room left, not just the block's; what the block makes past its length is refused
            // below, and overwritten by the next block.
            let room = UnsafeMutableRawBufferPointer(rebasing: kit.groupOutput[made...])
            let produced: Int
            switch try kit.pieces.inflate(kit.groupInput, piece: piece, final: span.isLast, into: room) {
            case .made(let count): produced = count
            case .tooLong: produced = room.count + 1
            case .endsStreamEarly:
                throw ZipError(.format, "block \(number) ends the deflate stream, but \(spans.count - number - 1) blocks follow")
            case .missingFinalBlock:
                if span.isLast { throw ZipError(.truncated, "the deflate stream does not end with its last block") }
                throw ZipError(.format, "block \(number) does not end where the index says it ends")
            case .unusedBytes:
                throw ZipError(.format, "block \(number) decodes without using all of its \(span.compressed.count) compressed bytes")
            }
            guard produced == span.uncompressed.count else {
                throw ZipError(.sizeMismatch, "block \(number) makes \(produced > room.count ? "more than \(room.count)" : "\(produced)") bytes, "
                               + "not the \(span.uncompressed.count) the block index gives it")
            }
            var crc = CRC32()
            crc.update(UnsafeRawBufferPointer(rebasing: room[0..<produced]))
            crcs.append(crc.value)
            made += produced
        }
        let file = FileDescriptor(rawValue: descriptor)
        for start in stride(from: 0, to: made, by: BlockGroups.writeSlice) {
            let slice = kit.groupOutput[start..<min(made, start + BlockGroups.writeSlice)]
            try io(file.writeAll(UnsafeRawBufferPointer(rebasing: slice), at: first.uncompressed.lowerBound + UInt64(start),
                                 path: path))
        }
        guard progress(UInt64(made)) else { throw ZipError(.cancelled, "inflating was stopped") }
        return crcs
    }

    /// Inflates block `number` into `descriptor`; returns its CRC-32.
    private func inflateBlock(_ number: Int, with kit: BlockTools, into descriptor: Int32, path: String,
                              progress: @Sendable (UInt64) -> Bool) throws(ZipError) -> UInt32 {
        let span = spans[number]
        if !span.isLast { try checkFlushMarker(span, number: number) }
        let compressed = (dataRange.lowerBound + span.compressed.lowerBound)..<(dataRange.lowerBound + span.compressed.upperBound)
        var input = BlockInput(source: source, range: compressed, buffer: kit.input)
        var output = BlockOutput(descriptor: descriptor, path: path, span: span)
        let expected = UInt64(span.uncompressed.count)
        var finished = false
        kit.inflater.reset()
        while output.written < expected && !finished {
            try input.refillIfEmpty()
            let room = Int(min(UInt64(kit.output.count), expected - output.written))
            let step = try kit.inflater.inflate(input.pending, into: UnsafeMutableRawBufferPointer(rebasing: kit.output[0..<room]))
            input.consume(step.consumed)
            finished = step.finished
            if step.produced > 0 {
                try output.write(UnsafeRawBufferPointer(rebasing: kit.output[0..<step.produced]), progress: progress)
            } else if step.consumed == 0 && !finished {
                guard input.isExhausted else { throw ZipError(.corruptData, "block \(number) makes no progress") }
                break
            }
        }
        if !finished && output.written == expected { finished = try drain(&input, into: &output, with: kit.inflater, number: number) }
        let crc = try output.check.finish()
        try checkEnd(number, span: span, finished: finished, input: input)
        return crc
    }

    /// The CRC-32 of block `number` as an earlier, interrupted call left it in `descriptor`.
    private func checksumKeptBlock(_ number: Int, with kit: BlockTools, in descriptor: Int32, path: String,
                                   progress: @Sendable (UInt64) -> Bool) throws(ZipError) -> UInt32 {
        let span = spans[number]
        var crc = CRC32()
        var offset = span.uncompressed.lowerBound
        while offset < span.uncompressed.upperBound {
            let wanted = Int(min(UInt64(kit.output.count), span.uncompressed.upperBound - offset))
            let chunk = UnsafeMutableRawBufferPointer(rebasing: kit.output[0..<wanted])
            let got = try io(FileDescriptor(rawValue: descriptor).read(at: offset, into: chunk, path: path))
            guard got > 0 else {
                throw ZipError(.truncated, "block \(number), kept from an interrupted run, ends early in \(path)", offset: offset)
            }
            crc.update(UnsafeRawBufferPointer(rebasing: kit.output[0..<got]))
            offset += UInt64(got)
            guard progress(0) else { throw ZipError(.cancelled, "inflating was stopped") }
        }
        return crc.value
    }

    /// Feeds the rest of the block's input after all its bytes are out: it may only finish headers
    /// (the flush marker, the end of the stream), never produce more (`output`'s check refuses that).
    private func drain(_ input: inout BlockInput, into output: inout BlockOutput, with inflater: Inflater,
                       number: Int) throws(ZipError) -> Bool {
        var scratch: UInt8 = 0
        while true {
            try input.refillIfEmpty()
            let step = try withUnsafeMutableBytes(of: &scratch) { (byte) throws(ZipError) -> Inflater.Step in
                try inflater.inflate(input.pending, into: byte)
            }
            input.consume(step.consumed)
            if step.produced > 0 { try withUnsafeBytes(of: scratch) { (byte) throws(ZipError) in try output.check.take(byte) } }
            if step.finished { return true }
            if step.consumed == 0 {
                guard input.isExhausted else { throw ZipError(.corruptData, "block \(number) makes no progress") }
                return false
            }
        }
    }

    /// A block's end, once its bytes checked out: the stream ends with the last block only, and every
    /// compressed byte was used.
    private func checkEnd(_ number: Int, span: DeflateBlockIndex.Span, finished: Bool, input: BlockInput) throws(ZipError) {
        if finished && !span.isLast {
            throw ZipError(.format, "block \(number) ends the deflate stream, but \(spans.count - number - 1) blocks follow")
        }
        if !finished && span.isLast {
            throw ZipError(.truncated, "the deflate stream does not end with its last block")
        }
        guard input.isExhausted else {
            throw ZipError(.format, "block \(number) decodes without using all of its \(span.compressed.count) compressed bytes")
        }
    }

    /// A block that is not the last must end as a full flush does: an empty stored block, `00 00 FF FF`.
    private func checkFlushMarker(_ span: DeflateBlockIndex.Span, number: Int) throws(ZipError) {
        let marker = try source.readBytes(4, at: dataRange.lowerBound + span.compressed.upperBound - 4)
        guard marker == [0x00, 0x00, 0xFF, 0xFF] else {
            throw ZipError(.format, "block \(number) does not end with a full flush where the index says it ends",
                           offset: dataRange.lowerBound + span.compressed.upperBound)
        }
    }
}

/// One thread's inflater and buffers (256 KiB of input read at a time, 1 MiB inflated per write; for a group of
/// small blocks, all of its compressed bytes and all it makes), reused from block to block.
private final class BlockTools {
    let inflater: Inflater
    let input: UnsafeMutableRawBufferPointer
    let output: UnsafeMutableRawBufferPointer
    /// The decoder of a group's blocks.
    let pieces: PieceInflater
    /// A group's compressed bytes, and room for ``PieceInflater/trailerRoom`` after them.
    let groupInput: UnsafeMutableRawBufferPointer
    let groupOutput: UnsafeMutableRawBufferPointer

    init() throws(ZipError) {
        inflater = try Inflater()
        input = .allocate(byteCount: 256 * 1024, alignment: 16)
        output = .allocate(byteCount: 1 << 20, alignment: 16)
        pieces = try PieceInflater()
        groupInput = .allocate(byteCount: BlockGroups.compressedLimit + PieceInflater.trailerRoom, alignment: 16)
        groupOutput = .allocate(byteCount: BlockGroups.outputLimit, alignment: 16)
    }

    deinit {
        input.deallocate()
        output.deallocate()
        groupInput.deallocate()
        groupOutput.deallocate()
    }
}

/// Consecutive blocks one job inflates: small ones (content-defined chunks of 64 KiB) together, up to 1 MiB of
/// compressed bytes and 4 MiB of output, so that a job costs one read and one journal entry, not one per chunk; a
/// block kept by an interrupted run, or too large for a group, is a job of its own.
enum BlockGroups {
    /// Compressed bytes of a group at most.
    static let compressedLimit = 1 << 20
    /// Bytes a group makes at most.
    static let outputLimit = 4 << 20
    /// Bytes one `pwrite` of a group's output writes at most. A 4 MiB write makes the page cache ask for large
    /// folios (high-order pages: compaction, and on a virtual machine memory the host must back anew), which cost
    /// three times the system time (Tools/Benchmarks/README.md, "First installs at last").
    static let writeSlice = 256 << 10

    /// The blocks of `spans` in groups, in order.
    static func of(_ spans: [DeflateBlockIndex.Span], kept: Set<Int>) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start = 0
        for number in spans.indices {
            if kept.contains(number) || !fits(number..<number + 1, of: spans) {  // a job of its own
                if number > start { groups.append(start..<number) }
                groups.append(number..<number + 1)
                start = number + 1
            } else if number > start && !fits(start..<number + 1, of: spans) {
                groups.append(start..<number)
                start = number
            }
        }
        if start < spans.count { groups.append(start..<spans.count) }
        return groups
    }

    /// Whether the blocks `numbers` fit one group's buffers.
    static func fits(_ numbers: Range<Int>, of spans: [DeflateBlockIndex.Span]) -> Bool {
        spans[numbers.upperBound - 1].compressed.upperBound - spans[numbers.lowerBound].compressed.lowerBound <= UInt64(compressedLimit)
            && spans[numbers.upperBound - 1].uncompressed.upperBound - spans[numbers.lowerBound].uncompressed.lowerBound <= UInt64(outputLimit)
    }
}

/// Where one block's inflated bytes go: counted and checksummed by the block's ``CheckedStream`` (never more
/// than the index gives the block), written at their offset in the file, reported.
private struct BlockOutput {
    let descriptor: Int32
    let path: String
    /// The block's offset in the file.
    let start: UInt64
    /// The block's size and CRC-32.
    var check: CheckedStream

    init(descriptor: Int32, path: String, span: DeflateBlockIndex.Span) {
        self.descriptor = descriptor
        self.path = path
        self.start = span.uncompressed.lowerBound
        self.check = CheckedStream(expecting: .init(size: UInt64(span.uncompressed.count), crc32: nil, claim: "given by the block index"))
    }

    /// Bytes written so far.
    var written: UInt64 { check.produced }

    mutating func write(_ bytes: UnsafeRawBufferPointer, progress: (UInt64) -> Bool) throws(ZipError) {
        let offset = start + written
        try check.take(bytes)
        try io(FileDescriptor(rawValue: descriptor).writeAll(bytes, at: offset, path: path))
        guard progress(UInt64(bytes.count)) else { throw ZipError(.cancelled, "inflating was stopped") }
    }
}

/// The compressed bytes of one block, read a buffer at a time.
private struct BlockInput {
    let source: any RandomAccessSource
    let buffer: UnsafeMutableRawBufferPointer
    private var next: UInt64
    private let end: UInt64
    private var start = 0, filled = 0

    init(source: any RandomAccessSource, range: Range<UInt64>, buffer: UnsafeMutableRawBufferPointer) {
        self.source = source
        self.buffer = buffer
        self.next = range.lowerBound
        self.end = range.upperBound
    }

    /// The bytes read but not yet consumed.
    var pending: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: buffer[start..<filled]) }

    /// True when every byte of the block was read and consumed.
    var isExhausted: Bool { start == filled && next == end }

    mutating func consume(_ count: Int) { start += count }

    mutating func refillIfEmpty() throws(ZipError) {
        guard start == filled, next < end else { return }
        let wanted = Int(min(UInt64(buffer.count), end - next))
        let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: next)
        guard got == wanted else { throw ZipError(.truncated, "archive ends inside the entry's data", offset: next + UInt64(got)) }
        next += UInt64(got)
        start = 0
        filled = got
    }
}
