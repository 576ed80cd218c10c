/// A stream of one entry's uncompressed bytes: it never yields more bytes than the entry declares, and it
/// verifies the exact size and the CRC-32 before it hands out the last bytes, so a damaged entry throws
/// instead of ending. One reader per thread; open as many as you like.
public final class ZipEntryReader: ByteStream, CheckedSource {
    /// The entry being read.
    public let entry: ZipEntry
    private let source: any RandomAccessSource
    private let limits: ZipLimits
    /// True for deflated data (false for stored data and an empty entry stored as no bytes).
    private let inflating: Bool
    /// The zlib stream: borrowed at opening, or this reader's own, made at the first read.
    private var inflater: Inflater?
    /// The compressed-input buffer: borrowed at opening, or this reader's own, allocated at the first read
    /// (so that opening an entry only to see that it opens costs no allocation).
    private var input: UnsafeMutableRawBufferPointer
    private let inputSize: Int
    /// The buffers borrowed at opening (nil when `input` and `inflater` are this reader's own).
    private let lender: ZipReadBuffers?
    private var inputStart = 0, inputEnd = 0
    private var nextOffset: UInt64
    private var compressedLeft: UInt64
    /// True once the deflate stream's last block was inflated.
    private var inflaterEnded = false
    /// Size, CRC-32 and the sticky error.
    private var check: CheckedStream

    init(archive: ZipArchive, entry: ZipEntry, bufferSize: Int, buffers: ZipReadBuffers? = nil) throws(ZipError) {
        // Some writers store an empty deflated file as no bytes at all, not as an empty deflate stream.
        let inflating = entry.method == .deflate && !(entry.compressedSize == 0 && entry.uncompressedSize == 0)
        var borrowed: Inflater?? = nil
        var head: [UInt8]?
        var prefetched = 0
        var base = 0  // where the local header is in the input buffer
        let dataStart: UInt64
        do {
            try entry.checkReadable()
            try LocalHeaderCheck.checkFixedPartFits(entry, in: archive.source)
            borrowed = try buffers?.borrow(inflating: inflating)
            if let buffers, borrowed != nil {
                // One read for the local header and, when it fits, all of the data — or none, when an
                // earlier read of the entries before it brought them in too.
                let fits = entry.compressedSize <= UInt64(buffers.input.count / 2)
                let span = min(buffers.input.count, LocalHeaderCheck.headerSpan(of: entry, in: archive.source,
                                                                                 dataBytes: fits ? entry.compressedSize : 0))
                if let index = buffers.cached(archive, at: entry.localHeaderOffset, count: span) {
                    base = index
                    prefetched = span
                } else {
                    let count = buffers.follows(archive, at: entry.localHeaderOffset) ? buffers.input.count : span
                    prefetched = try archive.source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffers.input[0..<count]),
                                                         at: entry.localHeaderOffset)
                    buffers.remember(archive, offset: entry.localHeaderOffset, count: prefetched)
                }
                head = Array(buffers.input[base..<(base + min(prefetched, LocalHeaderCheck.headerSpan(of: entry, in: archive.source)))])
            }
            dataStart = if let head {
                try LocalHeaderCheck.dataOffset(of: entry, in: archive.source, head: head)
            } else {
                try LocalHeaderCheck.dataOffset(of: entry, in: archive.source)
            }
            if let borrowed {
                self.inflater = borrowed
                buffers?.noteEnd(archive, at: dataStart + entry.compressedSize)
            }
        } catch {
            if borrowed != nil { buffers?.giveBack() }
            throw error.inArchive(archive.name).forEntry(entry.name)
        }
        self.entry = entry
        self.inflating = inflating
        self.source = archive.source
        self.limits = archive.limits
        self.nextOffset = dataStart
        self.compressedLeft = entry.compressedSize
        self.check = CheckedStream(expecting: .init(size: entry.uncompressedSize, crc32: entry.crc32, claim: "declared in the central directory"))
        if let buffers, borrowed != nil {
            self.lender = buffers
            self.input = buffers.input
            self.inputSize = buffers.input.count
            // Data already read with the header is used from the buffer.
            let dataIndex = dataStart - entry.localHeaderOffset
            if dataIndex < UInt64(prefetched) {
                let available = min(UInt64(prefetched) - dataIndex, entry.compressedSize)
                inputStart = base + Int(dataIndex)
                inputEnd = inputStart + Int(available)
                nextOffset += available
                compressedLeft -= available
            }
        } else {
            self.lender = nil
            self.input = UnsafeMutableRawBufferPointer(start: nil, count: 0)
            self.inputSize = inflating ? max(bufferSize, 4096) : 0
        }
    }

    deinit {
        if let lender { lender.giveBack() } else if input.count > 0 { input.deallocate() }
    }

    /// Bytes handed out so far.
    public var bytesRead: UInt64 { check.produced }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out. After a failure every call throws the same error: a damaged stream never
    /// looks like a clean end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        try check.read(into: buffer, from: self)
    }

    // MARK: - Decoding, for the check

    package func decode(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int {
        inflating ? try readDeflated(into: buffer, produced: produced) : try readStored(into: buffer)
    }

    package var hasEnded: Bool { inflating ? inflaterEnded : compressedLeft == 0 && inputStart == inputEnd }

    package func locate(_ error: ZipError) -> ZipError { error.inArchive(source.name).forEntry(entry.name) }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if inputStart < inputEnd {
            // Bytes read together with the local header.
            let count = min(buffer.count, inputEnd - inputStart)
            buffer.baseAddress!.copyMemory(from: input.baseAddress! + inputStart, byteCount: count)
            inputStart += count
            return count
        }
        let wanted = Int(min(UInt64(buffer.count), compressedLeft))
        guard wanted > 0 else { return 0 }
        let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: nextOffset)
        guard got == wanted else { throw ZipError(.truncated, "archive ends inside the entry's data", offset: nextOffset + UInt64(got)) }
        nextOffset += UInt64(got)
        compressedLeft -= UInt64(got)
        return got
    }

    /// Inflates into `buffer`; 0 once the deflate stream has ended.
    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int {
        guard !inflaterEnded else { return 0 }
        let inflater = try ownInflater()
        while true {
            try refillIfEmpty()
            let step = try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[inputStart..<inputEnd]), into: buffer)
            inputStart += step.consumed
            let consumed = entry.compressedSize - compressedLeft - UInt64(inputEnd - inputStart)
            try limits.checkRatio(output: produced + UInt64(step.produced), input: consumed)
            if step.finished { inflaterEnded = true }
            if step.produced > 0 || step.finished { return step.produced }
            if step.consumed == 0 && inputStart == inputEnd && compressedLeft == 0 {
                throw ZipError(.truncated, "deflate stream is cut short after \(produced) of \(entry.uncompressedSize) bytes")
            }
        }
    }

    /// The inflater, made now when this reader has none yet.
    private func ownInflater() throws(ZipError) -> Inflater {
        if let inflater { return inflater }
        let made = try Inflater()
        inflater = made
        return made
    }

    private func refillIfEmpty() throws(ZipError) {
        guard inputStart == inputEnd, compressedLeft > 0 else { return }
        if input.count == 0 { input = .allocate(byteCount: inputSize, alignment: 16) }
        lender?.forgetWindow()
        let wanted = Int(min(UInt64(input.count), compressedLeft))
        let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<wanted]), at: nextOffset)
        guard got == wanted else { throw ZipError(.truncated, "archive ends inside the entry's data", offset: nextOffset + UInt64(got)) }
        nextOffset += UInt64(got)
        compressedLeft -= UInt64(got)
        inputStart = 0
        inputEnd = got
    }
}
