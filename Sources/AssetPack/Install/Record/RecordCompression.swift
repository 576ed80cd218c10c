import AssetPackSystem
import AssetPackZip

/// The install record's file (``StagingNames/recordFile``, `installed.json.gz`) is its JSON text as one gzip
/// member (RFC 1952; `zcat` shows it): for a tree of many files the record is most of what a small upgrade
/// writes, and JSON of paths, hex digests and numbers shrinks to about 30% (a 3,000-file record: 678 kB of text,
/// 199 kB at ``level``). Written piece by piece as it is produced (``compress(_:into:origin:)``) and read a
/// chunk at a time (``RecordFileSource``), never whole.
enum RecordCompression {
    /// zlib's level for the record. Measured on the 3,000-file record of the deltas benchmark (678 kB of JSON):
    /// level 1 gives 202 kB in 8.8 ms, 3 gives 199 kB in 9.9 ms, 6 gives 187 kB in 21.7 ms, 9 gives 181 kB in
    /// 40 ms. 3 is the last level of zlib's fast strategy: nearly 6's size at less than half its time.
    static let level = 3

    /// Bytes of compressed output handed on at a time.
    private static let chunkSize = 64 << 10

    /// Hands to `write` the gzip data of the text that `produce` hands to its argument piece by piece; memory is
    /// one chunk of output and zlib's stream. `origin` names the file in an error.
    static func compress(_ produce: ((borrowing [UInt8]) throws(AssetPackError) -> Void) throws(AssetPackError) -> Void,
                         into write: (borrowing [UInt8]) throws(AssetPackError) -> Void, origin: String) throws(AssetPackError) {
        // `produce` calls back into `pump`, which calls `write`; neither outlives this call.
        try withoutActuallyEscaping(write) { (write) throws(AssetPackError) in try compress(produce, escaping: write, origin: origin) }
    }

    private static func compress(_ produce: ((borrowing [UInt8]) throws(AssetPackError) -> Void) throws(AssetPackError) -> Void,
                                 escaping write: @escaping (borrowing [UInt8]) throws(AssetPackError) -> Void,
                                 origin: String) throws(AssetPackError) {
        let deflater: Deflater
        do { deflater = try Deflater.gzip(level: level) } catch { throw AssetPackError(error, path: origin) }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { output.deallocate() }
        func pump(_ text: UnsafeRawBufferPointer, _ flush: Deflater.Flush) throws(AssetPackError) {
            var input = text
            while true {
                let step: Deflater.Step
                do { step = try deflater.deflate(input, into: output, flush: flush) } catch { throw AssetPackError(error, path: origin) }
                input = UnsafeRawBufferPointer(rebasing: input[step.consumed...])
                if step.produced > 0 { try write(Array(UnsafeRawBufferPointer(rebasing: output[0..<step.produced]))) }
                let done = flush == .finish ? step.finished : input.isEmpty && step.produced < output.count
                if done { return }
            }
        }
        try produce { (text) throws(AssetPackError) in
            try text.withBytesThrowingAssetPackError { (raw) throws(AssetPackError) in try pump(raw, .none) }
        }
        try pump(UnsafeRawBufferPointer(start: nil, count: 0), .finish)
    }
}
