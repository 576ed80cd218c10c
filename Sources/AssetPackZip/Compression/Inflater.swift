import CZlib

/// A raw-deflate (RFC 1951) decompressor over zlib's `inflate`, one per reader. Not thread-safe; cheap to reset.
package final class Inflater {
    private let zlib: ZlibStream
    private var stream: UnsafeMutablePointer<z_stream> { zlib.pointer }

    /// The outcome of one ``inflate(_:into:)`` step.
    package typealias Step = ZlibStream.Step

    package init() throws(ZipError) {
        zlib = try ZlibStream(call: "inflateInit2", start: { assetpack_inflate_init_raw($0) }, end: { inflateEnd($0) })
    }

    /// Starts a new stream, keeping the allocated window.
    package func reset() { inflateReset(stream) }

    /// Decodes from `input` into `output`. Returns what was consumed and produced; `finished` once the
    /// final block is done. Throws ``ZipError/Code/corruptData`` for a damaged stream.
    package func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Step {
        let (step, status) = zlib.step(input, into: output) { CZlib.inflate($0, Z_NO_FLUSH) }
        switch status {
        case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
            return step
        default:
            let detail = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
            throw ZipError(.corruptData, "deflate data is damaged: \(detail)", cause: .zlib(call: "inflate", status: status))
        }
    }
}
