/// Deflates data in independent blocks on several threads, pigz style, into ONE raw deflate stream
/// (RFC 1951) that every inflater reads.
///
/// Each block of ``blockSize`` bytes is compressed by a fresh compressor and ended with a full flush (an
/// empty stored block on a byte boundary, after which nothing refers back), the last one ending the stream;
/// read at the offsets of the ``DeflateBlockIndex``, each inflates on its own (``BlockParallelInflater``).
/// The output depends only on the data, the level, the block size and the encoder (``BlockDeflater/Engine``)
/// — never on ``jobs`` — so builds are byte-identical on any machine with the same encoder; memory is bounded
/// by (`jobs` + 1) × (one output block + its input: 64 KiB with zlib, up to 4 MiB with libdeflate).
///
/// ```swift
/// let deflater = try ParallelDeflater(level: 6, jobs: 4)
/// let result = try deflater.compress(FileSource(path: "huge.bin")) { bytes in try sink.write(bytes) }
/// ```
package struct ParallelDeflater: Sendable {
    /// 4 MiB: large enough that the restarted window costs nothing measurable, small enough for many blocks.
    package static let defaultBlockSize = 4 << 20
    /// The smallest block size accepted: 64 KiB.
    package static let minimumBlockSize = 64 << 10

    /// The deflate level 1–9.
    package let level: Int
    /// Bytes of input per block.
    package let blockSize: Int
    /// Blocks compressed at once (threads, the calling thread included).
    package let jobs: Int

    /// A compressor at `level` 1–9 with blocks of `blockSize` bytes (64 KiB to 1 GiB) on up to `jobs` threads.
    /// - Throws: ``ZipError/Code/invalidArgument`` for a level or block size out of range.
    package init(level: Int = 6, blockSize: Int = ParallelDeflater.defaultBlockSize, jobs: Int = 1) throws(ZipError) {
        guard (1...9).contains(level) else { throw ZipError(.invalidArgument, "deflate level \(level) is not 1–9") }
        guard (Self.minimumBlockSize...(1 << 30)).contains(blockSize) else {
            throw ZipError(.invalidArgument, "deflate block size \(blockSize) is not 64 KiB to 1 GiB")
        }
        self.level = level
        self.blockSize = blockSize
        self.jobs = max(1, jobs)
    }

    /// What one ``compress(_:range:into:)`` call produced.
    package struct Output: Sendable, Hashable {
        /// CRC-32 of the input.
        package var crc32: UInt32
        /// Bytes of input.
        package var uncompressedSize: UInt64
        /// Bytes of deflate data handed to the sink.
        package var compressedSize: UInt64
        /// Where each block starts.
        package var index: DeflateBlockIndex
    }

    /// Compresses the bytes `range` of `source` (all of it when nil) and hands the deflate stream to
    /// `write` in order, a block at a time, on the calling thread. The blocks are ``blockSize`` bytes each
    /// (the last one shorter), or have the lengths `blockLengths` lists when it is given (content-defined
    /// chunks, each at most ``blockSize`` bytes, which add up to the range's length).
    /// - Throws: ``ZipError``: `.truncated` when the source ends before the range does, what `write` or a
    ///   read throws, `.zlib` when zlib fails, `.invalidArgument` for block lengths that do not fit.
    package func compress(_ source: any RandomAccessSource, range: Range<UInt64>? = nil, blockLengths: [Int]? = nil,
                         into write: (UnsafeRawBufferPointer) throws(ZipError) -> Void) throws(ZipError) -> Output {
        let range = range ?? 0..<source.size
        let plan = try BlockPlan(source: source, range: range, blockSize: blockSize, lengths: blockLengths)
        let count = plan.count
        let (level, blockSize) = (level, blockSize)
        let kits = ObjectPool { () throws(ZipError) in try BlockKit(level: level) }
        let outputs = ObjectPool { () throws(ZipError) in OutputBuffer(capacity: BlockDeflater.capacity(for: blockSize)) }
        var output = Output(crc32: 0, uncompressedSize: 0, compressedSize: 0, index: DeflateBlockIndex([]))
        output.index.blocks.reserveCapacity(count)
        // One block more than threads, so a thread that finished early rarely waits for the writer.
        try OrderedPipeline.run(count: count, jobs: jobs, window: jobs + 1, produce: { (number) throws(ZipError) -> CompressedBlock in
            try kits.withObject { (kit) throws(ZipError) -> CompressedBlock in
                try kit.compress(number, of: plan, into: outputs.take())
            }
        }, consume: { (_, block) throws(ZipError) in
            defer { outputs.giveBack(block.output) }
            try write(block.bytes)
            output.append(block)
        })
        return output
    }
}

extension ParallelDeflater.Output {
    /// Counts `block`, just written after the blocks so far.
    fileprivate mutating func append(_ block: CompressedBlock) {
        index.blocks.append(DeflateBlockIndex.Block(uncompressedOffset: uncompressedSize, compressedOffset: compressedSize))
        crc32 = CRC32.combine(crc32, block.crc32, secondLength: UInt64(block.inputCount))
        uncompressedSize += UInt64(block.inputCount)
        compressedSize += UInt64(block.count)
    }
}

/// Which bytes of the source each block covers.
private struct BlockPlan: Sendable {
    let source: any RandomAccessSource
    let range: Range<UInt64>
    /// Where each block starts, relative to the range, and where the last one ends.
    let starts: [UInt64]

    /// Blocks of `blockSize` bytes over `range`, or of `lengths` (each 0…`blockSize`, adding up to the range).
    init(source: any RandomAccessSource, range: Range<UInt64>, blockSize: Int, lengths: [Int]?) throws(ZipError) {
        (self.source, self.range) = (source, range)
        let total = UInt64(range.count)
        guard let lengths else {
            let count = max(1, Int((total + UInt64(blockSize) - 1) / UInt64(blockSize)))
            starts = (0...count).map { min(UInt64($0) * UInt64(blockSize), total) }
            return
        }
        var starts: [UInt64] = [0]
        starts.reserveCapacity(lengths.count + 1)
        for length in lengths {
            guard (0...blockSize).contains(length) else {
                throw ZipError(.invalidArgument, "a block of \(length) bytes is not 0 to \(blockSize)", archive: source.name)
            }
            starts.append(starts[starts.count - 1] + UInt64(length))
        }
        guard !lengths.isEmpty, starts.last == total else {
            throw ZipError(.invalidArgument, "block lengths add up to \(starts.last ?? 0) bytes, not \(total)", archive: source.name)
        }
        self.starts = starts
    }

    /// The number of blocks.
    var count: Int { starts.count - 1 }

    func bounds(_ number: Int) -> (offset: UInt64, length: Int) {
        (range.lowerBound + starts[number], Int(starts[number + 1] - starts[number]))
    }
}

/// Room for one block's deflate data, reused from block to block.
private final class OutputBuffer: @unchecked Sendable {
    let storage: UnsafeMutableRawBufferPointer

    init(capacity: Int) { storage = .allocate(byteCount: capacity, alignment: 16) }

    deinit { storage.deallocate() }
}

/// One block's deflate data, held until it is written.
private struct CompressedBlock: Sendable {
    let output: OutputBuffer
    let count: Int
    let crc32: UInt32
    let inputCount: Int

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: output.storage[0..<count]) }
}

/// Compresses blocks on one thread, reading each 64 KiB at a time straight from the source.
private final class BlockKit {
    let deflater: BlockDeflater

    init(level: Int) throws(ZipError) {
        deflater = try BlockDeflater(level: level)
    }

    func compress(_ number: Int, of plan: BlockPlan, into output: OutputBuffer) throws(ZipError) -> CompressedBlock {
        let (offset, length) = plan.bounds(number)
        var crc = CRC32()
        var position = offset
        let count = try deflater.deflate(count: length, final: number == plan.count - 1, startingAt: offset - plan.range.lowerBound,
                                         into: output.storage) { (segment) throws(ZipError) in
            let got = try plan.source.read(into: segment, at: position)
            guard got == segment.count else {
                throw ZipError(.truncated, "the data ends after \(position + UInt64(got) - plan.range.lowerBound) bytes, "
                               + "\(plan.range.count) were expected", archive: plan.source.name)
            }
            crc.update(UnsafeRawBufferPointer(segment))
            position += UInt64(got)
        }
        return CompressedBlock(output: output, count: count, crc32: crc.value, inputCount: length)
    }
}
