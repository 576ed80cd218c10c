/// Reads one entry's data from a ``StreamInput`` and stops exactly at its end, for ``ZipStreamReader``.
/// The same contract as ``ZipEntryReader``: never more bytes than declared, and size and CRC-32 verified
/// before the end is reported. Where the data ends comes either from the local header (``Length/declared``)
/// or, for deflate with a data descriptor, from the deflate stream itself (``Length/descriptor``), after which
/// the descriptor is read from the bytes zlib left unconsumed.
final class StreamEntryData {
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
    private var crc = CRC32()
    private var streamEnded = false
    /// Uncompressed bytes handed out.
    private(set) var produced: UInt64 = 0
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
    }

    /// Fills `buffer` with the next bytes; returns 0 at the end, which is reached only after size and
    /// CRC-32 checked out.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        guard verified == nil, buffer.count > 0 else { return 0 }
        let count = inflater == nil ? try readStored(into: buffer) : try readDeflated(into: buffer)
        crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        produced += UInt64(count)
        if streamEnded || declaredEndReached { try finish() }
        return count
    }

    // MARK: - Sizes

    /// The local header's values, when it gave them.
    private var declared: DataDescriptor? {
        if case .declared(let values) = length { return values }
        return nil
    }

    /// All declared bytes are out (always false with a descriptor).
    private var declaredEndReached: Bool {
        guard let declared else { return false }
        return inflater == nil ? consumed == declared.compressedSize : produced == declared.uncompressedSize
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

    private func readDeflated(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let limit = declared.map { $0.uncompressedSize - produced } ?? .max
        let room = Int(min(UInt64(buffer.count), limit))
        guard room > 0 else { return 0 }
        let output = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<room])
        while true {
            let step = try inflateStep(into: output)
            try checkRatio(output: produced + UInt64(step.produced))
            if step.produced > 0 || step.finished { return step.produced }
        }
    }

    /// One call to zlib on the input at hand (refilled when empty); records what was consumed and whether
    /// the deflate stream ended. Throws when the data stops, or zlib stops making progress, before the end.
    private func inflateStep(into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Inflater.Step {
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

    private func checkRatio(output: UInt64) throws(ZipError) {
        guard let ratio = limits.maxCompressionRatio, output > limits.ratioGraceSize else { return }
        if Double(output) > ratio * Double(max(consumed, 1)) {
            throw ZipError(.limitExceeded, "compression ratio exceeds the limit of \(Int(ratio)):1", offset: input.offset)
        }
    }

    // MARK: - End

    /// The data is all out: a declared deflate stream must end here with nothing more; then the values the
    /// data has must match the local header's or the descriptor's.
    private func finish() throws(ZipError) {
        if inflater != nil && !streamEnded { try drainToStreamEnd() }
        let actual = DataDescriptor(crc32: crc.value, compressedSize: consumed, uncompressedSize: produced)
        let end = input.offset
        switch length {
        case .declared(let expected):
            try check(actual, against: expected, source: "local header", at: end)
        case .descriptor(let zip64):
            let expected = try readDescriptor(zip64: zip64, actual: actual)
            try check(actual, against: expected, source: "data descriptor", at: end)
        }
        verified = actual
    }

    /// Runs zlib with one byte of room until the stream ends; any output means more data than declared.
    private func drainToStreamEnd() throws(ZipError) {
        var scratch: UInt8 = 0
        while !streamEnded {
            let step = try withUnsafeMutableBytes(of: &scratch) { (out) throws(ZipError) -> Inflater.Step in
                try inflateStep(into: out)
            }
            if step.produced > 0 {
                throw ZipError(.sizeMismatch, "deflate stream holds more than the \(produced) bytes declared",
                               offset: input.offset)
            }
        }
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

    /// Compares what the data turned out to be with what `source` declared; `offset` is where the data ended.
    private func check(_ actual: DataDescriptor, against expected: DataDescriptor, source: String,
                       at offset: UInt64) throws(ZipError) {
        guard actual.uncompressedSize == expected.uncompressedSize else {
            throw ZipError(.sizeMismatch, "data is \(actual.uncompressedSize) bytes, "
                           + "the \(source) says \(expected.uncompressedSize)", offset: offset)
        }
        guard actual.compressedSize == expected.compressedSize else {
            throw ZipError(.sizeMismatch, "compressed data is \(actual.compressedSize) bytes, "
                           + "the \(source) says \(expected.compressedSize)", offset: offset)
        }
        guard actual.crc32 == expected.crc32 else {
            throw ZipError(.checksum, "CRC-32 mismatch: the \(source) says \(hex(expected.crc32)), "
                           + "data has \(hex(actual.crc32))", offset: offset)
        }
    }
}
