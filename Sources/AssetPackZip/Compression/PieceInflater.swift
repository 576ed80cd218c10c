import CLibdeflate

/// Decodes one deflate piece held whole in memory: a block of a block-deflated entry (``ParallelDeflater``, a
/// content-defined chunk of a bundle), which ends with a full flush (`00 00 FF FF`) or with the stream's final block.
/// Not thread-safe: one per thread.
///
/// It decodes with libdeflate where the library is loaded — the fastest decoder of a whole buffer, and one that keeps
/// no window between calls — else with an ``Inflater`` (ISA-L or zlib). A piece that ends with a flush is not a whole
/// stream, which both decoders want: the caller leaves ``trailerRoom`` bytes of room after it, where the 5 bytes of
/// an empty final stored block go while it is decoded (and what was there is put back), so the decoder ends exactly
/// where the piece does. Every outcome is checked the same way whichever decoder runs: the piece must use all of its
/// bytes, end the stream only when it is `final`, and make at most the room given.
package final class PieceInflater {
    /// Bytes of room a piece that ends with a flush needs after it in its buffer.
    package static let trailerRoom = 5
    /// An empty stored block with the final bit: what ends a flushed piece for the decoder.
    private static let trailer: [UInt8] = [0x01, 0x00, 0x00, 0xFF, 0xFF]

    private enum Engine {
        case libdeflate(OpaquePointer)
        case streaming(Inflater)
    }

    private let engine: Engine

    /// What decoding a piece found.
    package enum Outcome: Equatable, Sendable {
        /// The piece made this many bytes and ended where it should.
        case made(Int)
        /// It made more than the room given.
        case tooLong
        /// It ended the deflate stream although it is not final (its final block came early).
        case endsStreamEarly
        /// It is final but does not end the stream.
        case missingFinalBlock
        /// It ended before its last compressed byte.
        case unusedBytes
    }

    /// A decoder: libdeflate's where it is loaded (`ASSETPACK_INFLATER=isal` or `zlib` says no), else an
    /// ``Inflater`` on the fastest engine.
    /// - Throws: ``ZipError/Code/zlib`` when no decoder can start (out of memory).
    package init() throws(ZipError) {
        if let made = assetpack_libdeflate_decompressor_create() {
            engine = .libdeflate(made)
        } else {
            engine = .streaming(try Inflater())
        }
    }

    /// A decoder that streams with `engine` even where libdeflate is loaded: the one libdeflate's absence leaves,
    /// for tests that hold the two to the same outcomes.
    package init(streamingWith engine: Inflater.Engine) throws(ZipError) {
        self.engine = .streaming(try Inflater(engine: engine))
    }

    deinit {
        if case .libdeflate(let pointer) = engine { assetpack_libdeflate_decompressor_destroy(pointer) }
    }

    /// True when this process decodes pieces with libdeflate.
    package static var usesLibdeflate: Bool { assetpack_libdeflate_decompresses() != 0 }

    /// Decodes the piece `buffer[piece]` into `output`; unless `final`, `buffer` must hold ``trailerRoom`` bytes
    /// after the piece (they are borrowed and put back).
    /// - Throws: ``ZipError/Code/corruptData`` when the bytes are not deflate data.
    package func inflate(_ buffer: UnsafeMutableRawBufferPointer, piece: Range<Int>, final: Bool,
                         into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Outcome {
        if final { return try decode(UnsafeRawBufferPointer(rebasing: buffer[piece]), pieceLength: piece.count, final: true, into: output) }
        precondition(buffer.count - piece.upperBound >= Self.trailerRoom, "a flushed piece needs room for the trailer after it")
        let borrowed = UnsafeMutableRawBufferPointer(rebasing: buffer[piece.upperBound..<(piece.upperBound + Self.trailerRoom)])
        var saved: (UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &saved) { $0.copyMemory(from: UnsafeRawBufferPointer(borrowed)) }
        Self.trailer.withUnsafeBytes { borrowed.copyMemory(from: $0) }
        defer { withUnsafeBytes(of: saved) { borrowed.copyMemory(from: $0) } }
        let input = UnsafeRawBufferPointer(rebasing: buffer[piece.lowerBound..<(piece.upperBound + Self.trailerRoom)])
        return try decode(input, pieceLength: piece.count, final: false, into: output)
    }

    /// Decodes `input` (the piece, and the trailer unless `final`) and judges where it ended.
    private func decode(_ input: UnsafeRawBufferPointer, pieceLength: Int, final: Bool,
                        into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Outcome {
        let consumed: Int, produced: Int
        switch engine {
        case .libdeflate(let pointer):
            var used = 0, made = 0
            let status = assetpack_libdeflate_decompress(pointer, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                                                         output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count,
                                                         &used, &made)
            switch status {
            case 0: (consumed, produced) = (used, made)
            case 3: return .tooLong
            default:
                throw ZipError(.corruptData, "deflate data is damaged: libdeflate refused it",
                               cause: .libdeflate(call: "libdeflate_deflate_decompress_ex", status: status))
            }
        case .streaming(let inflater):
            inflater.reset()
            var pending = input, made = 0, finished = false
            while !finished {
                let step = try inflater.inflate(pending, into: UnsafeMutableRawBufferPointer(rebasing: output[made...]))
                pending = UnsafeRawBufferPointer(rebasing: pending[step.consumed...])
                made += step.produced
                finished = step.finished
                if step.consumed == 0 && step.produced == 0 { break }
            }
            if !finished { return made == output.count ? .tooLong : .missingFinalBlock }
            (consumed, produced) = (input.count - pending.count, made)
        }
        if final { return consumed < pieceLength ? .unusedBytes : .made(produced) }
        // A flushed piece must use its own bytes and the trailer's: a stream that ended within its bytes ended early.
        if consumed <= pieceLength { return .endsStreamEarly }
        return consumed == input.count ? .made(produced) : .missingFinalBlock
    }
}
