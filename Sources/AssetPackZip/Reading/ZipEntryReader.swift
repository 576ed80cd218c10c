/// A stream of one entry's uncompressed bytes. It checks what a caller cannot forget to check: it never
/// yields more bytes than the entry declares, and it verifies the exact size and the CRC-32 before it
/// hands out the last bytes — a damaged entry throws instead of ending. A truncated or damaged deflate
/// stream is an error, never a hang. One reader per thread; open as many as you like.
public final class ZipEntryReader: ByteStream {
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
    private var produced: UInt64 = 0
    private var crc = CRC32()
    private var finished = false
    /// The error that ended the stream; every later read throws it again.
    private var failure: ZipError?

    init(archive: ZipArchive, entry: ZipEntry, bufferSize: Int, buffers: ZipReadBuffers? = nil) throws(ZipError) {
        // Some writers store an empty deflated file as no bytes at all, not as an empty deflate stream.
        let inflating = entry.method == .deflate && !(entry.compressedSize == 0 && entry.uncompressedSize == 0)
        var borrowed: Inflater?? = nil
        var head: [UInt8]?
        var prefetched = 0
        let dataStart: UInt64
        do {
            try Self.checkSupported(entry)
            try LocalHeaderCheck.checkFixedPartFits(entry, in: archive.source)
            borrowed = try buffers?.borrow(inflating: inflating)
            if let buffers, borrowed != nil {
                // One read for the local header and, when it fits, all of the data.
                let fits = entry.compressedSize <= UInt64(buffers.input.count / 2)
                let span = min(buffers.input.count, LocalHeaderCheck.headerSpan(of: entry, in: archive.source,
                                                                                 dataBytes: fits ? entry.compressedSize : 0))
                prefetched = try archive.source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffers.input[0..<span]),
                                                     at: entry.localHeaderOffset)
                head = Array(buffers.input[0..<min(prefetched, LocalHeaderCheck.headerSpan(of: entry, in: archive.source))])
            }
            dataStart = if let head {
                try LocalHeaderCheck.dataOffset(of: entry, in: archive.source, head: head)
            } else {
                try LocalHeaderCheck.dataOffset(of: entry, in: archive.source)
            }
            if let borrowed { self.inflater = borrowed }
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
        if let buffers, borrowed != nil {
            self.lender = buffers
            self.input = buffers.input
            self.inputSize = buffers.input.count
            // Data already read with the header is used from the buffer.
            let dataIndex = dataStart - entry.localHeaderOffset
            if dataIndex < UInt64(prefetched) {
                let available = min(UInt64(prefetched) - dataIndex, entry.compressedSize)
                inputStart = Int(dataIndex)
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

    /// Refuses what this reader cannot decode: encryption, patched data, methods other than stored and deflate.
    private static func checkSupported(_ entry: ZipEntry) throws(ZipError) {
        func fail(_ code: ZipError.Code, _ message: String) -> ZipError {
            ZipError(code, message, offset: entry.localHeaderOffset)
        }
        if entry.isEncrypted { throw fail(.encrypted, "entry is encrypted; encrypted entries are not supported") }
        if entry.flags & GeneralPurposeFlag.patchedData != 0 { throw fail(.unsupportedFeature, "patched data is not supported") }
        guard entry.method.isSupported else {
            throw fail(.unsupportedMethod, "compression method \(entry.method) is not supported (only stored and deflate)")
        }
    }

    deinit {
        if let lender { lender.giveBack() } else if input.count > 0 { input.deallocate() }
    }

    /// Bytes handed out so far.
    public var bytesRead: UInt64 { produced }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out. After a failure every call throws the same error: a damaged stream never
    /// looks like a clean end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if let failure { throw failure }
        do {
            if finished || buffer.count == 0 { return 0 }
            let count = inflating ? try readDeflated(into: buffer) : try readStored(into: buffer)
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            produced += UInt64(count)
            if produced == entry.uncompressedSize && !finished { try finish() }
            return count
        } catch {
            let located = error.inArchive(source.name).forEntry(entry.name)
            failure = located
            throw located
        }
    }

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

    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let room = Int(min(UInt64(buffer.count), entry.uncompressedSize - produced))
        guard room > 0 else {
            // Nothing more is declared; the stream must end now without more output.
            try finish()
            return 0
        }
        let output = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room])
        let inflater = try ownInflater()
        while true {
            try refillIfEmpty()
            let step = try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[inputStart..<inputEnd]), into: output)
            inputStart += step.consumed
            try checkRatio(extra: UInt64(step.produced))
            if step.produced > 0 { return step.produced }
            if step.finished {
                throw ZipError(.sizeMismatch, "deflate stream ends after \(produced) bytes, but \(entry.uncompressedSize) are declared")
            }
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
        let wanted = Int(min(UInt64(input.count), compressedLeft))
        let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: input[0..<wanted]), at: nextOffset)
        guard got == wanted else { throw ZipError(.truncated, "archive ends inside the entry's data", offset: nextOffset + UInt64(got)) }
        nextOffset += UInt64(got)
        compressedLeft -= UInt64(got)
        inputStart = 0
        inputEnd = got
    }

    private func checkRatio(extra: UInt64) throws(ZipError) {
        guard let ratio = limits.maxCompressionRatio else { return }
        let out = produced + extra
        guard out > limits.ratioGraceSize else { return }
        let consumed = entry.compressedSize - compressedLeft - UInt64(inputEnd - inputStart)
        if Double(out) > ratio * Double(max(consumed, 1)) {
            throw ZipError(.limitExceeded, "compression ratio exceeds the limit of \(Int(ratio)):1")
        }
    }

    /// All declared bytes are out: a deflate stream must end here with nothing more, and the CRC must match.
    private func finish() throws(ZipError) {
        if inflating {
            let inflater = try ownInflater()
            var scratch: UInt8 = 0
            while true {
                try refillIfEmpty()
                let step = try withUnsafeMutableBytes(of: &scratch) { (out) throws(ZipError) -> Inflater.Step in
                    try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[inputStart..<inputEnd]), into: out)
                }
                inputStart += step.consumed
                if step.produced > 0 {
                    throw ZipError(.sizeMismatch, "deflate stream holds more than the \(entry.uncompressedSize) bytes declared")
                }
                if step.finished { break }
                if step.consumed == 0 && inputStart == inputEnd && compressedLeft == 0 {
                    throw ZipError(.truncated, "deflate stream is cut short after all \(produced) declared bytes")
                }
            }
        } else if produced != entry.uncompressedSize {
            throw ZipError(.sizeMismatch, "stored data is \(produced) bytes, \(entry.uncompressedSize) declared")
        }
        guard crc.value == entry.crc32 else {
            throw ZipError(.checksum, "CRC-32 mismatch: expected \(hex(entry.crc32)), data has \(hex(crc.value))")
        }
        finished = true
    }
}
