import AssetPack
import AssetPackZip

/// Decodes a body sent with `Content-Encoding: gzip` into another sink, as it arrives: one gzip member, its
/// CRC-32 and length checked by zlib, nothing allowed after it. A body that does not start with gzip's magic
/// bytes is passed on as it is: a transport that decodes on its own (URLSession does) leaves the header in place.
/// Memory: one 64 KiB buffer and one zlib stream.
final class GzipDecodingSink<Target: DeliverySink>: DeliverySink {
    private let target: Target
    /// For messages: the resource.
    private let url: String
    /// The most decoded bytes accepted (a small body may decode to a great deal).
    private let limit: UInt64
    private var decoded: UInt64 = 0
    private var inflater: Inflater?
    private var decides = true, passes = false, ended = false
    /// The body's first byte, held until the second one says whether it is gzip data.
    private var first: UInt8?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)

    /// A sink decoding into `target` the body of `url`, at most `limit` bytes once decoded.
    init(_ target: Target, url: String, limit: UInt64) {
        self.target = target
        self.url = url
        self.limit = limit
    }

    deinit { buffer.deallocate() }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        guard !bytes.isEmpty else { return }
        if decides {
            guard let first else {
                first = bytes[0]
                return try write(UnsafeRawBufferPointer(rebasing: bytes[1...]))
            }
            decides = false
            passes = first != 0x1F || bytes[0] != 0x8B
            if !passes {
                do { inflater = try Inflater.gzip() } catch { throw AssetPackError(error, path: url) }
            }
            try withUnsafeBytes(of: first) { (held) throws(AssetPackError) in try write(held) }
        }
        guard let inflater, !passes else { return try target.write(bytes) }
        var input = bytes
        while !input.isEmpty || !ended {
            if ended { throw damaged("bytes follow the end of the gzip data") }
            let step: Inflater.Step
            do { step = try inflater.inflate(input, into: buffer) } catch { throw damaged(error.message) }
            input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
            decoded += UInt64(step.produced)
            guard decoded <= limit else {
                throw AssetPackError(.limitExceeded, "larger than the \(limit) bytes allowed for it, once decoded", path: url)
            }
            if step.produced > 0 { try target.write(UnsafeRawBufferPointer(rebasing: buffer[0..<step.produced])) }
            ended = step.finished
            if step.produced < buffer.count && (input.isEmpty || step.consumed == 0) && !ended { return }
        }
    }

    func restart() throws(AssetPackError) {
        (decides, passes, ended, inflater, decoded, first) = (true, false, false, nil, 0, nil)
        try target.restart()
    }

    /// Accepts the body once the gzip data ended where its trailer says.
    func finish() throws(AssetPackError) {
        if decides, let first {  // a body of one byte
            decides = false
            try withUnsafeBytes(of: first) { (held) throws(AssetPackError) in try target.write(held) }
        }
        if inflater != nil && !ended { throw damaged("the gzip data ends early") }
    }

    private func damaged(_ reason: String) -> AssetPackError {
        AssetPackError(.io, "a gzip-compressed answer is damaged: \(reason)", path: url)
    }
}
