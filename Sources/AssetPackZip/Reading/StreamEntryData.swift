/// Reads one entry's data from a ``StreamInput`` and stops exactly at its end, for ``ZipStreamReader``, checked
/// by a ``CheckedStream`` as ``ZipEntryReader`` is. The end comes from the local header or, for deflate with a
/// data descriptor, from the deflate stream itself, after which the descriptor is read.
final class StreamEntryData: CheckedSource {
    /// Where the entry's data ends.
    enum Length {
        /// The local header gave CRC-32 and sizes.
        case declared(DataDescriptor)
        /// A data descriptor follows the deflate stream; `zip64` when the local header had a Zip64 field.
        case descriptor(zip64: Bool)
    }

    private let input: StreamInput
    private let inflater: Inflater?
    private let length: Length
    private let limits: ZipLimits
    private var streamEnded = false
    /// Size, CRC-32 and the sticky error.
    private var check: CheckedStream
    /// Compressed bytes taken from the input.
    private(set) var consumed: UInt64 = 0
    /// CRC-32 and sizes, once the end has been reached and verified.
    private(set) var verified: DataDescriptor?

    /// Starts reading data at the input's position. `inflater` (already reset) for deflate, nil for stored.
    init(input: StreamInput, inflater: Inflater?, length: Length, limits: ZipLimits) {
        self.input = input
        self.inflater = inflater
        self.length = length
        self.limits = limits
        var expected: CheckedStream.Expectation?
        if case .declared(let values) = length {
            expected = .init(size: values.uncompressedSize, crc32: values.crc32, compressedSize: values.compressedSize,
                             claim: "declared in the local header")
        }
        self.check = CheckedStream(expecting: expected)
    }

    /// Uncompressed bytes handed out.
    var produced: UInt64 { check.produced }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = try check.read(into: buffer, from: self)
        if check.isVerified && verified == nil {
            verified = DataDescriptor(crc32: check.crc32, compressedSize: consumed, uncompressedSize: check.produced)
        }
        return count
    }

    // MARK: - Decoding, for the check

    func decode(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int {
        inflater == nil ? try readStored(into: buffer) : try readDeflated(into: buffer, produced: produced)
    }

    var hasEnded: Bool { inflater == nil ? compressedLeft == 0 : streamEnded }

    /// Errors without an offset get the input's.
    func locate(_ error: ZipError) -> ZipError {
        guard error.offset == nil else { return error }
        var located = error
        located.offset = input.offset
        return located
    }

    // MARK: - Sizes

    /// The local header's values, when it gave them.
    private var declared: DataDescriptor? {
        if case .declared(let values) = length { return values }
        return nil
    }

    /// Compressed bytes of this entry not yet taken from the input (unbounded with a descriptor).
    private var compressedLeft: UInt64 {
        guard let declared else { return .max }
        return declared.compressedSize - consumed
    }

    // MARK: - Stored

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let wanted = Int(min(UInt64(buffer.count), compressedLeft))
        guard wanted > 0 else { return 0 }
        let got = try input.copy(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
        guard got > 0 else { throw ZipError(.truncated, "archive ends inside the entry's data", offset: input.offset) }
        consumed += UInt64(got)
        return got
    }

    // MARK: - Deflate

    /// Inflates into `buffer`; 0 once the deflate stream has ended.
    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Int {
        guard !streamEnded else { return 0 }
        while true {
            let step = try inflateStep(into: buffer, produced: produced)
            try limits.checkRatio(output: produced + UInt64(step.produced), input: consumed)
            if step.produced > 0 || step.finished { return step.produced }
        }
    }

    /// One call to zlib on the input at hand (refilled when empty); records what was consumed and whether
    /// the deflate stream ended. Throws when the data stops, or zlib stops making progress, before the end.
    private func inflateStep(into output: UnsafeMutableRawBufferPointer, produced: UInt64) throws(ZipError) -> Inflater.Step {
        let window = try inputWindow()
        let step = try inflater!.inflate(window, into: output)
        input.consume(step.consumed)
        consumed += UInt64(step.consumed)
        if step.finished { streamEnded = true }
        guard step.consumed == 0 && step.produced == 0 && !step.finished else { return step }
        if window.isEmpty {
            throw ZipError(.truncated, "deflate stream is cut short after \(produced) bytes", offset: input.offset)
        }
        throw ZipError(.corruptData, "deflate data is damaged: inflate makes no progress", offset: input.offset)
    }

    /// The buffered bytes that belong to this entry, reading more first when none are buffered and the entry
    /// has more. Empty only when the declared compressed bytes are all used.
    private func inputWindow() throws(ZipError) -> UnsafeRawBufferPointer {
        if compressedLeft > 0, try !input.refillIfEmpty() {
            throw ZipError(.truncated, "archive ends inside the entry's data", offset: input.offset)
        }
        let available = Int(min(UInt64(input.count), compressedLeft))
        return UnsafeRawBufferPointer(rebasing: input.buffered[0..<available])
    }

    // MARK: - End

    /// The data descriptor after the deflate stream: what the data must be.
    func expectationAtEnd(size: UInt64, crc32: UInt32) throws(ZipError) -> CheckedStream.Expectation {
        guard case .descriptor(let zip64) = length else { throw ZipError(.invalidArgument, "the local header gave the sizes") }
        let actual = DataDescriptor(crc32: crc32, compressedSize: consumed, uncompressedSize: size)
        let descriptor = try readDescriptor(zip64: zip64, actual: actual)
        return .init(size: descriptor.uncompressedSize, crc32: descriptor.crc32, compressedSize: descriptor.compressedSize,
                     claim: "declared in the data descriptor")
    }

    /// Reads the descriptor after the deflate stream, choosing its layout with
    /// ``DataDescriptor/find(in:zip64:expecting:)``.
    private func readDescriptor(zip64: Bool, actual: DataDescriptor) throws(ZipError) -> DataDescriptor {
        _ = try input.require(DataDescriptor.lookahead)
        let window = Array(input.buffered.prefix(DataDescriptor.lookahead))
        guard let (descriptor, layout) = DataDescriptor.find(in: window, zip64: zip64, expecting: actual) else {
            throw ZipError(.truncated, "archive ends inside the entry's data descriptor", offset: input.offset)
        }
        input.consume(layout.length)
        return descriptor
    }
}
