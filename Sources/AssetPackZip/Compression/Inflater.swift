import CIsal
import CZlib

/// A raw-deflate (RFC 1951) decompressor, one per reader. Not thread-safe; cheap to reset.
///
/// It decodes with Intel's ISA-L where the library is installed (``Engine/isal``: about twice zlib's speed
/// on x86-64 and arm64), else with the system zlib (``Engine/zlib``: every platform). Both decode the same
/// bytes (Tools/Fuzz's differential target holds them to it), and every caller checks size and CRC-32 the
/// same way whichever runs.
package final class Inflater {
    /// A deflate decoder.
    package enum Engine: String, Sendable, CaseIterable {
        /// The system zlib's `inflate`: present on every platform.
        case zlib
        /// ISA-L's `isal_inflate` (libisal.so.2), loaded at run time where it is installed.
        case isal

        /// The fastest engine this process can use: ISA-L when it was built with its header and the library
        /// loads (`ASSETPACK_INFLATER=zlib` in the environment says no), else zlib.
        package static let fastest: Engine = isAvailable(.isal) ? .isal : .zlib

        /// True when this process can decode with `engine`.
        package static func isAvailable(_ engine: Engine) -> Bool {
            engine == .zlib || assetpack_isal_available() != 0
        }
    }

    private enum Stream {
        case zlib(ZlibStream)
        case isal(OpaquePointer)
    }

    private let stream: Stream

    /// The outcome of one ``inflate(_:into:)`` step.
    package typealias Step = ZlibStream.Step

    /// A decompressor decoding with `engine` (the fastest available by default).
    /// - Throws: ``ZipError/Code/zlib`` when the engine cannot start (out of memory, or not available).
    package init(engine: Engine = .fastest) throws(ZipError) {
        switch engine {
        case .zlib:
            stream = .zlib(try ZlibStream(call: "inflateInit2", start: { assetpack_inflate_init_raw($0) }, end: { inflateEnd($0) }))
        case .isal:
            guard let made = assetpack_isal_inflater_create() else {
                throw ZipError(.zlib, "ISA-L's inflater could not start: the library is not loaded, or memory ran out",
                               cause: .isal(call: "isal_inflate_init", status: -1))
            }
            stream = .isal(made)
        }
    }

    /// A decompressor of one gzip member (RFC 1952: header, deflate data, CRC-32 and length, all checked by
    /// zlib): an HTTP body sent with `Content-Encoding: gzip`. `finished` once the member's trailer checked out.
    /// - Throws: ``ZipError/Code/zlib`` when zlib cannot start (out of memory).
    package static func gzip() throws(ZipError) -> Inflater {
        Inflater(stream: .zlib(try ZlibStream(call: "inflateInit2", start: { assetpack_inflate_init_gzip($0) }, end: { inflateEnd($0) })))
    }

    private init(stream: Stream) { self.stream = stream }

    deinit {
        if case .isal(let pointer) = stream { assetpack_isal_inflater_destroy(pointer) }
    }

    /// Starts a new stream, keeping the allocated window.
    package func reset() {
        switch stream {
        case .zlib(let zlib): inflateReset(zlib.pointer)
        case .isal(let pointer): assetpack_isal_inflater_reset(pointer)
        }
    }

    /// Decodes from `input` into `output`. Returns what was consumed and produced; `finished` once the
    /// final block is done. Throws ``ZipError/Code/corruptData`` for a damaged stream.
    package func inflate(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Step {
        switch stream {
        case .zlib(let zlib):
            let (step, status) = zlib.step(input, into: output) { CZlib.inflate($0, Z_NO_FLUSH) }
            switch status {
            case Z_OK, Z_STREAM_END, Z_BUF_ERROR:
                return step
            default:
                let detail = zlib.pointer.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                throw ZipError(.corruptData, "deflate data is damaged: \(detail)", cause: .zlib(call: "inflate", status: status))
            }
        case .isal(let pointer):
            var consumed = 0, produced = 0
            var finished: Int32 = 0
            let status = assetpack_isal_inflate(pointer, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                                                output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count,
                                                &consumed, &produced, &finished)
            guard status == 0 else {
                throw ZipError(.corruptData, "deflate data is damaged: \(Self.isalProblem(status))",
                               cause: .isal(call: "isal_inflate", status: status))
            }
            return Step(consumed: consumed, produced: produced, finished: finished != 0)
        }
    }

    /// ISA-L's words for a negative `isal_inflate` status.
    private static func isalProblem(_ status: Int32) -> String {
        switch status {
        case -1: "invalid block"
        case -2: "invalid code (symbol)"
        case -3: "invalid distance too far back"
        default: "ISA-L status \(status)"
        }
    }
}
