import CLibdeflate

/// Compresses one piece for ``BlockDeflater`` with libdeflate, whose compressor takes a whole buffer and
/// writes a finished stream: the piece's input is gathered in runs of up to ``runLimit`` bytes, each run
/// compressed on its own and, unless it ends the stream, reopened (``DeflateStreamReopener``) so that the
/// next follows in the same stream. Segments that look like noise are written as stored blocks between runs.
/// The result is what zlib's route writes in form — a raw deflate stream, final or ended with an empty stored
/// block on a byte boundary — not in bytes. Not thread-safe; one per ``BlockDeflater``.
final class LibdeflatePieceCompressor {
    /// Bytes compressed as one libdeflate stream at most: a piece is gathered in memory a run at a time, and
    /// a dictionary restarted every 4 MiB costs nothing measurable (the same reason as the block size).
    static let runLimit = 4 << 20

    private let compressor: OpaquePointer
    private let reopener: DeflateStreamReopener
    private var run: UnsafeMutableRawBufferPointer

    /// A compressor at `level` 1–9.
    /// - Throws: ``ZipError/Code/zlib`` when libdeflate is not loaded, memory ran out, or zlib cannot start.
    init(level: Int) throws(ZipError) {
        guard let made = assetpack_libdeflate_compressor_create(Int32(level)) else {
            throw ZipError(.zlib, "libdeflate's compressor could not start: the library is not loaded, or memory ran out")
        }
        compressor = made
        reopener = try DeflateStreamReopener()
        run = .allocate(byteCount: 0, alignment: 16)
    }

    deinit {
        assetpack_libdeflate_compressor_destroy(compressor)
        run.deallocate()
    }

    /// Whether libdeflate was loaded in this process (not when `ASSETPACK_DEFLATER=zlib`).
    static var isAvailable: Bool { assetpack_libdeflate_available() != 0 }

    /// Compresses `count` bytes that `read` delivers, segment by segment (`firstSegment` bytes, then `segmentSize`
    /// bytes, the last shorter), into `output`; returns the bytes written. `isNoise` judges each segment: noise is stored.
    func deflate(count: Int, final: Bool, segmentSize: Int, firstSegment: Int, into output: UnsafeMutableRawBufferPointer,
                 isNoise: (UnsafeRawBufferPointer) -> Bool,
                 reading read: (UnsafeMutableRawBufferPointer) throws(ZipError) -> Void) throws(ZipError) -> Int {
        reserveRun(min(count, Self.runLimit))
        var writer = PieceWriter(output: output, count: count)
        var gathered = 0
        var start = 0
        while start < count {
            let length = min(start == 0 ? firstSegment : segmentSize, count - start)
            if gathered + length > run.count {
                try writer.append(compressing: gathered, of: self, final: false)
                gathered = 0
            }
            let segment = UnsafeMutableRawBufferPointer(rebasing: run[gathered..<(gathered + length)])
            try read(segment)
            start += length
            if isNoise(UnsafeRawBufferPointer(segment)) {
                if gathered > 0 { try writer.append(compressing: gathered, of: self, final: false) }
                try writer.appendStored(UnsafeRawBufferPointer(segment), final: final && start == count)
                gathered = 0
            } else {
                gathered += length
            }
        }
        if gathered > 0 || count == 0 {
            try writer.append(compressing: gathered, of: self, final: final)
        } else if !final {
            try writer.appendStored(UnsafeRawBufferPointer(start: nil, count: 0), final: false)
        }
        return writer.produced
    }

    /// Makes the run buffer hold `count` bytes at least.
    private func reserveRun(_ count: Int) {
        guard run.count < count else { return }
        run.deallocate()
        run = .allocate(byteCount: count, alignment: 16)
    }

    /// Compresses the first `count` bytes of the run into `output` as a finished stream, reopened unless
    /// `final`; returns the bytes written.
    fileprivate func compressRun(_ count: Int, final: Bool, into output: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let room = output.count - DeflateStreamReopener.growth
        let written = room > 0 ? assetpack_libdeflate_compress(compressor, run.baseAddress?.assumingMemoryBound(to: UInt8.self), count,
                                                               output.baseAddress?.assumingMemoryBound(to: UInt8.self), room) : 0
        guard written > 0 else { throw ZipError(.zlib, "libdeflate needed more than \(room) bytes for \(count)") }
        return final ? written : try reopener.reopen(output, count: written, decodedCount: count)
    }
}

/// The output of one piece, written from the front.
private struct PieceWriter {
    let output: UnsafeMutableRawBufferPointer
    /// The piece's input size, for errors.
    let count: Int
    private(set) var produced = 0

    init(output: UnsafeMutableRawBufferPointer, count: Int) {
        self.output = output
        self.count = count
    }

    private var rest: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(rebasing: output[produced...]) }

    /// Appends the run's first `count` bytes, compressed.
    mutating func append(compressing count: Int, of compressor: LibdeflatePieceCompressor, final: Bool) throws(ZipError) {
        produced += try compressor.compressRun(count, final: final, into: rest)
    }

    /// Appends `bytes` as stored blocks of up to 65,535 bytes (at least one block), on the byte boundary every
    /// piece of this writer ends on; the last block is final when `final`.
    mutating func appendStored(_ bytes: UnsafeRawBufferPointer, final: Bool) throws(ZipError) {
        var start = 0
        repeat {
            let length = min(0xFFFF, bytes.count - start)
            guard output.count - produced >= 5 + length else {
                throw ZipError(.zlib, "deflate needed more than \(output.count) bytes for \(count)")
            }
            let last = start + length == bytes.count
            let header: [UInt8] = [final && last ? 1 : 0, UInt8(length & 0xFF), UInt8(length >> 8),
                                   UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            for byte in header {
                output[produced] = byte
                produced += 1
            }
            if length > 0 {
                rest.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)]))
                produced += length
            }
            start += length
        } while start < bytes.count
    }
}
