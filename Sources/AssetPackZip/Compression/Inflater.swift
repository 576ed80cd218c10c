import CZlib

/// A raw-deflate (RFC 1951) decompressor over zlib's `inflate`, one per reader. Not thread-safe; cheap to reset.
final class Inflater {
    private let stream: UnsafeMutablePointer<z_stream>

    /// The outcome of one ``inflate(_:into:)`` step.
    struct Step {
        /// Input bytes consumed.
        var consumed: Int
        /// Output bytes produced.
        var produced: Int
        /// The deflate stream's final block has been decoded.
        var finished: Bool
    }

    init() throws(ZipError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = assetpack_inflate_init_raw(stream)
        guard status == Z_OK else {
            stream.deallocate()
            throw ZipError.zlib("inflateInit2", status: status)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Starts a new stream, keeping the allocated window.
    func reset() { inflateReset(stream) }

    /// Decodes from `input` into `output`. Returns what was consumed and produced; `finished` once the
    /// final block is done. Throws ``ZipError/Code/corruptData`` for a damaged stream.
    func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Step {
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count, Int(UInt32.max))
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(inCount)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(outCount)
        let status = CZlib.inflate(stream, Z_NO_FLUSH)
        let step = Step(consumed: inCount - Int(stream.pointee.avail_in),
                        produced: outCount - Int(stream.pointee.avail_out),
                        finished: status == Z_STREAM_END)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        switch status {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
            return step
        default:
            let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw ZipError(.corruptData, "deflate data is damaged: \(detail)", cause: .zlib(call: "inflate", status: status))
        }
    }
}
