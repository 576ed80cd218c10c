import CZlib

/// One zlib stream (`z_stream`), owned by a ``Deflater`` or an ``Inflater``: allocated and started once,
/// ended and freed with its owner, and run one step at a time over the caller's buffers. Not thread-safe.
package final class ZlibStream {
    /// The outcome of one step: input consumed, output produced, and whether the stream ended.
    package struct Step {
        /// Input bytes consumed.
        package var consumed: Int
        /// Output bytes produced.
        package var produced: Int
        /// The deflate stream's final block was written (deflate) or decoded (inflate).
        package var finished: Bool
    }

    /// The stream zlib works on.
    let pointer: UnsafeMutablePointer<z_stream>
    private let end: (UnsafeMutablePointer<z_stream>) -> Int32

    /// Allocates a stream and starts it with `start` (`deflateInit2`/`inflateInit2`, named `call` in the
    /// error); `end` (`deflateEnd`/`inflateEnd`) runs when the stream goes away.
    /// - Throws: ``ZipError/Code/zlib`` when zlib refuses to start.
    init(call: String, start: (UnsafeMutablePointer<z_stream>) -> Int32,
         end: @escaping (UnsafeMutablePointer<z_stream>) -> Int32) throws(ZipError) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        let status = start(pointer)
        guard status == Z_OK else {
            pointer.deallocate()
            throw ZipError.zlib(call, status: status)
        }
        self.end = end
    }

    deinit {
        _ = end(pointer)
        pointer.deallocate()
    }

    /// Runs `code` (`deflate` or `inflate` with its flush mode) once from `input` into `output`; returns the
    /// step and zlib's status. The buffers are detached from the stream again before it returns.
    func step(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
              _ code: (UnsafeMutablePointer<z_stream>) -> Int32) -> (step: Step, status: Int32) {
        let inCount = min(input.count, Int(UInt32.max))
        let outCount = min(output.count, Int(UInt32.max))
        pointer.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        pointer.pointee.avail_in = uInt(inCount)
        pointer.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        pointer.pointee.avail_out = uInt(outCount)
        let status = code(pointer)
        let step = Step(consumed: inCount - Int(pointer.pointee.avail_in),
                        produced: outCount - Int(pointer.pointee.avail_out), finished: status == Z_STREAM_END)
        pointer.pointee.next_in = nil
        pointer.pointee.next_out = nil
        return (step, status)
    }
}
