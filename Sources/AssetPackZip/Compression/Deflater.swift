import CZlib

/// A raw-deflate (RFC 1951) compressor over zlib's `deflate`, one per writer (or, from ``gzip(level:)``, a
/// compressor of one gzip member). Not thread-safe.
package final class Deflater {
    private let zlib: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { zlib.pointer }

    /// How a ``deflate(_:into:flush:)`` call ends its input.
    package enum Flush {
        /// More input follows.
        case none
        /// End the current block on a byte boundary and reset the dictionary (pigz-style independent blocks).
        case full
        /// End the current deflate block, not necessarily on a byte boundary (before a level change).
        case block
        /// The input is complete: write the final block.
        case finish

        var zlibValue: Int32 {
            switch self {
            case .none: Z_NO_FLUSH
            case .full: Z_FULL_FLUSH
            case .block: Z_BLOCK
            case .finish: Z_FINISH
            }
        }
    }

    /// The outcome of one step: input consumed, output produced, and whether `.finish` completed.
    package typealias Step = ZlibStream.Step

    /// A compressor at `level` 0–9 (zlib's 6 is the usual default).
    init(level: Int) throws(ZipError) {
        guard (0...9).contains(level) else { throw ZipError(.invalidArgument, "deflate level \(level) is not 0–9") }
        zlib = try ZlibStream(call: "deflateInit2", start: { assetpack_deflate_init_raw($0, Int32(level), 8) },
                              end: { deflateEnd($0) })
    }

    /// A compressor of one gzip member (RFC 1952: header, deflate data, CRC-32 and length) at `level` 0–9, as
    /// `gzip` writes and ``Inflater/gzip()`` reads.
    package static func gzip(level: Int) throws(ZipError) -> Deflater {
        guard (0...9).contains(level) else { throw ZipError(.invalidArgument, "deflate level \(level) is not 0–9") }
        return Deflater(zlib: try ZlibStream(call: "deflateInit2", start: { assetpack_deflate_init_gzip($0, Int32(level)) },
                                             end: { deflateEnd($0) }))
    }

    private init(zlib: ZlibStream) { self.zlib = zlib }

    /// Starts a new stream with the same settings.
    func reset() { deflateReset(stream) }

    /// Compresses from `input` into `output`.
    package func deflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
                 flush: Flush) throws(ZipError) -> Step {
        let (step, status) = zlib.step(input, into: output) { CZlib.deflate($0, flush.zlibValue) }
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw ZipError.zlib("deflate", status: status)
        }
        return step
    }

    /// Switches to `level` 0–9 for the input that follows (zlib's `deflateParams`): what was compressed so
    /// far is ended as a block (`Z_BLOCK`) into `output` first. Returns the bytes produced there.
    /// - Throws: ``ZipError/Code/zlib`` when `output` is too small for that block or zlib refuses.
    func setLevel(_ level: Int, flushingInto output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let flushed = try deflate(UnsafeRawBufferPointer(start: nil, count: 0), into: output, flush: .block)
        guard flushed.produced < output.count else { throw ZipError(.zlib, "no room to end a deflate block before a level change") }
        stream.pointee.next_out = output.baseAddress.map { ($0 + flushed.produced).assumingMemoryBound(to: Bytef.self) }
        stream.pointee.avail_out = uInt(min(output.count - flushed.produced, Int(UInt32.max)))
        let before = Int(stream.pointee.avail_out)
        let status = deflateParams(stream, Int32(level), Z_DEFAULT_STRATEGY)
        let produced = flushed.produced + before - Int(stream.pointee.avail_out)
        stream.pointee.next_out = nil
        guard status == Z_OK else { throw ZipError.zlib("deflateParams", status: status) }
        return produced
    }

    /// An upper bound on the compressed size of `count` bytes (zlib's `deflateBound`).
    func bound(_ count: Int) -> Int { Int(deflateBound(stream, uLong(count))) }
}
