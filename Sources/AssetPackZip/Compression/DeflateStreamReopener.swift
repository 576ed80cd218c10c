import CZlib

/// Turns a complete raw deflate stream (RFC 1951) into a piece that more pieces may follow, as if it had been
/// ended with zlib's full flush instead of finished: its final block's BFINAL bit is cleared, and an empty
/// stored block (BFINAL 0) follows that block's end-of-block code, which brings the stream to a byte boundary.
/// That is how ``BlockDeflater`` joins independently compressed pieces into one stream with a whole-buffer
/// compressor (libdeflate) that can only write finished streams.
///
/// Where the final block starts and ends is only known by decoding, so ``reopen(_:count:decodedCount:)``
/// decodes the stream once with zlib, stopping at every block boundary (`Z_BLOCK`): about a tenth of the
/// time compressing it took. Reusable; one per thread.
final class DeflateStreamReopener {
    private let zlib: ZlibStream
    /// Room for decoded bytes, which are only counted.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// The bytes an empty stored block adds after the 3 header bits and the padding to a byte boundary:
    /// LEN 0 and its complement.
    private static let emptyStoredLength: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// At most this many bytes more than the stream: the header bits' spill into a new byte, and LEN/NLEN.
    static let growth = 5

    /// A reopener with its own zlib decoder.
    /// - Throws: ``ZipError/Code/zlib`` when zlib cannot start.
    init() throws(ZipError) {
        zlib = try ZlibStream(call: "inflateInit2", start: { assetpack_inflate_init_raw($0) }, end: { inflateEnd($0) })
    }

    deinit { scratch.deallocate() }

    /// Reopens the complete raw deflate stream in the first `count` bytes of `buffer` in place; returns its
    /// new length (at most ``growth`` more, which `buffer` must have room for).
    /// - Throws: ``ZipError/Code/corruptData`` when the bytes are not one complete stream that decodes to
    ///   `decodedCount` bytes and ends where they end; ``ZipError/Code/invalidArgument`` without the room.
    func reopen(_ buffer: UnsafeMutableRawBufferPointer, count: Int, decodedCount: Int) throws(ZipError) -> Int {
        guard count <= buffer.count - Self.growth else {
            throw ZipError(.invalidArgument, "no room to reopen a deflate stream of \(count) bytes in \(buffer.count)")
        }
        let (finalHeaderBit, endBit) = try locateFinalBlock(UnsafeRawBufferPointer(rebasing: buffer[0..<count]),
                                                            decodedCount: decodedCount)
        let bytes = buffer.bindMemory(to: UInt8.self)
        bytes[finalHeaderBit / 8] &= ~(UInt8(1) << (finalHeaderBit % 8))
        // The stored block's header (BFINAL 0, BTYPE 00) is three zero bits from `endBit`, then zero padding to
        // the byte boundary: clear every bit from `endBit` on and reach the boundary after those three bits.
        bytes[endBit / 8] &= UInt8(truncatingIfNeeded: (1 << (endBit % 8)) - 1)
        var length = (endBit + 3 + 7) / 8
        if length > count { bytes[count] = 0 }
        for byte in Self.emptyStoredLength {
            bytes[length] = byte
            length += 1
        }
        return length
    }

    /// Decodes `stream` and returns the bit offsets of its final block's header and of the end of that
    /// block's end-of-block code.
    private func locateFinalBlock(_ stream: UnsafeRawBufferPointer,
                                  decodedCount: Int) throws(ZipError) -> (finalHeaderBit: Int, endBit: Int) {
        inflateReset(zlib.pointer)
        var consumed = 0
        var decoded = 0
        var headerBit = 0
        while true {
            let (step, status) = zlib.step(UnsafeRawBufferPointer(rebasing: stream[consumed...]), into: scratch) {
                inflate($0, Z_BLOCK)
            }
            consumed += step.consumed
            decoded += step.produced
            guard status == Z_OK || status == Z_BUF_ERROR, decoded <= decodedCount else {
                throw damaged("it does not decode (zlib status \(status))", stream.count, decodedCount)
            }
            // zlib's data_type: the bits left unused in the last byte read, +64 once the final block's header
            // was read, +128 when stopped at a block boundary.
            let dataType = Int(zlib.pointer.pointee.data_type)
            let bitOffset = consumed * 8 - (dataType & 63)
            if dataType & 128 != 0 {
                guard dataType & 64 != 0 else {
                    headerBit = bitOffset
                    continue
                }
                guard decoded == decodedCount, (bitOffset + 7) / 8 == stream.count else {
                    throw damaged("it ends after \(decoded) bytes, at byte \((bitOffset + 7) / 8)", stream.count, decodedCount)
                }
                return (headerBit, bitOffset)
            }
            if step.consumed == 0 && step.produced == 0 {
                throw damaged("it is cut short", stream.count, decodedCount)
            }
        }
    }

    private func damaged(_ reason: String, _ count: Int, _ decodedCount: Int) -> ZipError {
        ZipError(.corruptData, "a compressed piece of \(count) bytes meant to decode to \(decodedCount) bytes cannot be reopened: \(reason)")
    }
}
