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

/// The text of an install record's file, for ``JSONPullParser``: inflated a chunk at a time when the file starts
/// with gzip's magic bytes (`1f 8b`), read as it is when it does not (the plain `installed.json` of older
/// installs). Gzip data that is damaged, cut short or followed by other bytes is an error: the record is then
/// unreadable, as a broken text is.
final class RecordFileSource {
    private let file: Descriptor
    private let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
    /// The unread bytes of ``input``.
    private var start = 0, end = 0
    /// Nil until the first bytes decided; then the inflater of gzip data, or nil for plain text.
    private var inflater: Inflater?
    private var decided = false, ended = false
    /// The most bytes of text the record may inflate to (``InstallRecord/maxRecordSize``), and how many it did.
    private let limit: Int
    private var inflated = 0

    /// The source of the record in `file`, read from where the file is, at most `limit` bytes of text.
    init(_ file: Descriptor, limit: Int) {
        self.file = file
        self.limit = limit
    }

    deinit { input.deallocate() }

    /// Fills `buffer` with the record's next text; 0 at its end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(AssetPackError) -> Int {
        if !decided { try decide() }
        guard let inflater else {
            guard start == end else { return take(into: buffer) }
            return try io(file.fd.read(into: buffer, path: file.path))
        }
        while !ended {
            if start == end, try refill() == 0 { throw damaged("its gzip data is cut short") }
            let step: Inflater.Step
            do {
                step = try inflater.inflate(UnsafeRawBufferPointer(rebasing: input[start..<end]), into: buffer)
            } catch {
                throw damaged(error.message)
            }
            start += step.consumed
            ended = step.finished
            inflated += step.produced
            if inflated > limit { throw damaged("it inflates to more than \(limit) bytes") }
            if step.produced > 0 { return step.produced }
        }
        let trailing = try start < end ? end - start : refill()
        if trailing > 0 { throw damaged("bytes follow its gzip data") }
        return 0
    }

    /// Reads the rest of a compressed record, only to check it (a reader of one list stops where its list ends):
    /// throws when its data is damaged, cut short or followed by other bytes, or its length or CRC-32 differs
    /// from its trailer's. Does nothing for plain text.
    func checkRest() throws(AssetPackError) {
        guard inflater != nil else { return }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { scratch.deallocate() }
        while try read(into: scratch) > 0 {}
    }

    /// Reads the first bytes and decides by them whether the file is gzip data.
    private func decide() throws(AssetPackError) {
        decided = true
        while end < 2, try refill(keeping: true) > 0 {}
        guard end >= 2, input[0] == 0x1F, input[1] == 0x8B else { return }
        do { inflater = try Inflater.gzip() } catch { throw AssetPackError(error, path: file.path) }
    }

    /// Reads more of the file into ``input``, after the bytes kept there when `keeping`, else in place of them.
    private func refill(keeping: Bool = false) throws(AssetPackError) -> Int {
        if !keeping { (start, end) = (0, 0) }
        let count = try io(file.fd.read(into: UnsafeMutableRawBufferPointer(rebasing: input[end...]), path: file.path))
        end += count
        return count
    }

    /// Copies unread bytes of ``input`` into `buffer`.
    private func take(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(buffer.count, end - start)
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: input[start..<(start + count)]))
        start += count
        return count
    }

    private func damaged(_ reason: String) -> AssetPackError {
        AssetPackError(.io, "the install record is damaged: \(reason)", path: file.path)
    }
}
