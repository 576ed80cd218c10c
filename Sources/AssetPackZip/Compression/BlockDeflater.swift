/// Deflates data held in memory one piece at a time, each with a fresh dictionary: a whole small file
/// (`final`: the piece is a complete raw deflate stream), or one block of a block-deflated stream ended
/// with a full flush (see ``ParallelDeflater``). Reusable; one per thread.
///
/// With ``storesNoise`` (the default), a 64 KiB segment that looks incompressible (`NoiseDetector`) is stored
/// (level 0): deflate would spend as much time on it as on text, to write about as many bytes.
///
/// It compresses with libdeflate where the library is installed (``Engine/libdeflate``: about twice zlib's
/// speed for the same size), else with the system zlib (``Engine/zlib``). Both write the same form — one raw
/// deflate stream that any inflater reads, pieces ended the same way — but not the same bytes: the output
/// depends on the data, the level and the engine.
///
/// ```swift
/// let deflater = try BlockDeflater(level: 6)
/// let compressed = try deflater.deflate(bytes)           // a whole raw deflate stream
/// ```
package final class BlockDeflater {
    /// A deflate encoder.
    package enum Engine: String, Sendable, CaseIterable {
        /// The system zlib's `deflate`: present on every platform.
        case zlib
        /// libdeflate's whole-buffer compressor (libdeflate.so.0), loaded at run time where it is installed.
        case libdeflate

        /// The fastest engine this process can use: libdeflate when the library loads
        /// (`ASSETPACK_DEFLATER=zlib` in the environment says no), else zlib.
        package static let fastest: Engine = isAvailable(.libdeflate) ? .libdeflate : .zlib

        /// True when this process can compress with `engine`.
        package static func isAvailable(_ engine: Engine) -> Bool {
            engine == .zlib || LibdeflatePieceCompressor.isAvailable
        }
    }

    /// The deflate level 1–9.
    package let level: Int
    /// Whether segments that look incompressible are stored instead of compressed.
    package let storesNoise: Bool
    /// The encoder.
    package let engine: Engine
    private let deflater: Deflater
    private let libdeflate: LibdeflatePieceCompressor?
    private var currentLevel: Int
    /// A segment of input read by the streaming variant.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: segmentSize, alignment: 16)

    /// Bytes judged (and stored or compressed) as one.
    static let segmentSize = 64 * 1024

    /// A compressor at `level` 1–9 with `engine` (the fastest available by default).
    /// - Throws: ``ZipError/Code/invalidArgument`` for another level; `.zlib` when the engine cannot start.
    package init(level: Int, storesNoise: Bool = true, engine: Engine = .fastest) throws(ZipError) {
        guard (1...9).contains(level) else { throw ZipError(.invalidArgument, "deflate level \(level) is not 1–9") }
        self.level = level
        self.storesNoise = storesNoise
        self.engine = engine
        self.deflater = try Deflater(level: level)
        self.libdeflate = engine == .libdeflate ? try LibdeflatePieceCompressor(level: level) : nil
        self.currentLevel = level
    }

    deinit { scratch.deallocate() }

    /// Room enough for the compressed form of `count` input bytes, whatever they are and whichever engine:
    /// zlib's conservative bound (an eighth and a sixty-fourth more) plus the block ends of stored segments
    /// and reopened runs.
    package static func capacity(for count: Int) -> Int {
        count + (count + 7) / 8 + (count + 63) / 64 + 64 + 32 * (count / segmentSize + 1)
    }

    /// Compresses `input` as one independent piece of a raw deflate stream: the end of the stream when
    /// `final`, else a block ended with a full flush (byte-aligned, nothing refers back past it) that
    /// more pieces may follow.
    /// - Returns: the compressed bytes.
    package func deflate(_ input: UnsafeRawBufferPointer, final: Bool = true) throws(ZipError) -> [UInt8] {
        var failure: ZipError?
        let output = [UInt8](unsafeUninitializedCapacity: Self.capacity(for: input.count)) { buffer, count in
            do throws(ZipError) {
                count = try deflate(input, final: final, into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                failure = error
                count = 0
            }
        }
        if let failure { throw failure }
        return output
    }

    /// Compresses `input` as one independent piece into `output`, which must hold at least
    /// ``capacity(for:)`` bytes; returns how many it wrote.
    /// - Throws: ``ZipError/Code/invalidArgument`` when `output` is smaller or `input` is 4 GiB or more.
    package func deflate(_ input: UnsafeRawBufferPointer, final: Bool = true,
                        into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        if libdeflate != nil {
            var start = 0
            return try deflate(count: input.count, final: final, into: output) { (segment) throws(ZipError) in
                segment.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[start..<(start + segment.count)]))
                start += segment.count
            }
        }
        return try compress(count: input.count, final: final, into: output) { (start, length) throws(ZipError) in
            UnsafeRawBufferPointer(rebasing: input[start..<(start + length)])
        }
    }

    /// Compresses `count` bytes that `read` delivers, as one independent piece, into `output` (at least
    /// ``capacity(for:)`` bytes); returns how many it wrote. `read` is called with a buffer of up to 64 KiB
    /// to fill completely, again and again until `count` bytes were delivered: a piece of any size
    /// costs 64 KiB of input memory. `offset`: where the piece starts in the data it is part of; segments are
    /// judged at multiples of 64 KiB of that data, so that where pieces begin (content-defined chunks) does not
    /// change what is stored.
    package func deflate(count: Int, final: Bool = true, startingAt offset: UInt64 = 0, into output: UnsafeMutableRawBufferPointer,
                        reading read: (UnsafeMutableRawBufferPointer) throws(ZipError) -> Void) throws(ZipError) -> Int {
        let firstSegment = Self.segmentSize - Int(offset % UInt64(Self.segmentSize))
        if let libdeflate {
            guard count >= 0, count < Int(UInt32.max), output.count >= Self.capacity(for: count) else {
                throw roomError(count, output.count)
            }
            let storesNoise = storesNoise
            return try libdeflate.deflate(count: count, final: final, segmentSize: Self.segmentSize, firstSegment: firstSegment,
                                          into: output, isNoise: { storesNoise && NoiseDetector.isNoise($0) }, reading: read)
        }
        return try compress(count: count, final: final, firstSegment: firstSegment, into: output) { (_, length) throws(ZipError) in
            let segment = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<length])
            try read(segment)
            return UnsafeRawBufferPointer(segment)
        }
    }

    /// The piece of `count` bytes, judged and compressed a segment at a time (the first `firstSegment` bytes
    /// long); `segment(start, length)` gives each segment's bytes.
    private func compress(count: Int, final: Bool, firstSegment: Int = segmentSize, into output: UnsafeMutableRawBufferPointer,
                          segment: (Int, Int) throws(ZipError) -> UnsafeRawBufferPointer) throws(ZipError) -> Int {
        guard count >= 0, count < Int(UInt32.max), output.count >= Self.capacity(for: count) else {
            throw roomError(count, output.count)
        }
        deflater.reset()
        var produced = 0
        var start = 0
        while start < count {
            let bytes = try segment(start, min(start == 0 ? firstSegment : Self.segmentSize, count - start))
            let wanted = storesNoise && NoiseDetector.isNoise(bytes) ? 0 : level
            if wanted != currentLevel {
                produced += try deflater.setLevel(wanted, flushingInto: UnsafeMutableRawBufferPointer(rebasing: output[produced...]))
                currentLevel = wanted
            }
            let step = try deflater.deflate(bytes, into: UnsafeMutableRawBufferPointer(rebasing: output[produced...]), flush: .none)
            produced += step.produced
            guard step.consumed == bytes.count, produced < output.count else { throw overflow(count, output.count) }
            start += bytes.count
        }
        let end = try deflater.deflate(UnsafeRawBufferPointer(start: nil, count: 0),
                                       into: UnsafeMutableRawBufferPointer(rebasing: output[produced...]), flush: final ? .finish : .full)
        produced += end.produced
        // Done once zlib ended the stream, or (a flush) left output room to spare.
        guard final ? end.finished : produced < output.count else { throw overflow(count, output.count) }
        return produced
    }

    private func roomError(_ count: Int, _ room: Int) -> ZipError {
        ZipError(.invalidArgument, "a piece of \(count) bytes needs an input under 4 GiB and "
                 + "\(Self.capacity(for: max(0, count))) bytes of output room, not \(room)")
    }

    private func overflow(_ count: Int, _ room: Int) -> ZipError {
        ZipError(.zlib, "deflate needed more than \(room) bytes for \(count)")
    }
}

extension BlockDeflater {
    /// Compresses `input` as one piece, as the variant taking a buffer pointer does.
    package func deflate(_ input: [UInt8], final: Bool = true) throws(ZipError) -> [UInt8] {
        try input.withRawBytes { (raw) throws(ZipError) -> [UInt8] in try deflate(raw, final: final) }
    }
}
