import AssetPackZip

/// Reads a manifest laid out as the packer writes it (`{"entries":[`, then one entry a line, each line but
/// the last ending in `,`, then `]` and the other members) from its stream a chunk at a time, so that its
/// text is never held whole: the manifest of a bundle of 1,000,000 files is about 300 MB, more than its
/// entries take once read. The complete lines of each chunk are read by ``ManifestDirectReader``'s entry
/// reader (``EntryRun``), a long chunk in two halves on two threads.
///
/// It reads what the direct reader reads, and nothing else: a text laid out otherwise, or one that reader
/// does not take on, gives nil, and the caller reads the text whole (``BundleManifest/decode(_:origin:)``),
/// which decides and words the error. A line break is never inside a JSON string, so a chunk cut after a
/// line ending in `,` is cut between two values; when that is inside an entry (an entry written over
/// several lines), the entry does not read and the text is left to the caller.
enum ManifestStreamReader {
    /// Bytes read from the stream at a time (a chunk grows only for a single entry longer than this).
    static let chunkSize = 4 << 20

    /// The text a manifest in the packer's layout starts with.
    private static let opening = Array(#"{"entries":["#.utf8)

    /// Reads the manifest from `stream`, handing its entries to `take` a run at a time as they are read
    /// (a run: the entries of a chunk, or of half of one), in order; returns the manifest's other members
    /// (its ``BundleManifest/entries`` empty), or nil when the text is not one this reader takes on (the
    /// stream is then partly read, and `take` may have had some of its entries). `expectedSize`, when known,
    /// lets the first call to `take` say about how many entries there are in all; `chunkSize` is for tests.
    /// - Throws: what `take` throws; the stream's errors and `limitExceeded` past `limit` bytes, as
    ///   ``AssetPackError``s naming `origin`.
    static func read(_ stream: any ByteStream, expectedSize: UInt64?, limit: Int, chunkSize: Int = chunkSize, origin: String,
                     take: (_ entries: [BundleManifest.Entry], _ expectedCount: Int?) throws(AssetPackError) -> Void)
        throws(AssetPackError) -> BundleManifest? {
        var chunk = Chunk(stream: stream, limit: limit, size: chunkSize, origin: origin)
        try chunk.fill()
        guard chunk.startsWith(opening) else { return nil }
        var start = opening.count
        var first = true
        while true {
            let cut = chunk.atEnd ? chunk.filled : chunk.lastLineBreakAfterComma()
            guard let cut, cut > start else {
                guard !chunk.atEnd else { return nil }
                try chunk.fill(keepingFrom: start, growing: true)
                start = 0
                continue
            }
            let outcome = chunk.withText(upTo: cut) { text in read(text, from: start, until: chunk.atEnd ? nil : cut) }
            guard let outcome else { return nil }
            for run in outcome.runs {
                let count = first ? expectedSize.map { estimatedCount(read: run.count * outcome.runs.count, bytes: outcome.end - start, of: $0) } : nil
                first = false
                try take(run, count)
            }
            if outcome.closed {
                try chunk.readToEnd(keepingFrom: outcome.end)
                return chunk.withText(upTo: chunk.filled) { text in trailer(text) }
            }
            guard !chunk.atEnd else { return nil }  // the whole text read and the array never closed
            try chunk.fill(keepingFrom: outcome.end, growing: false)
            start = 0
        }
    }

    /// The entries of `text` from the element at (or the white space before) `start`, until the array
    /// closes or an element starts at or after `stop`, in one or two runs; nil when they do not read.
    private static func read(_ text: JSONBytes, from start: Int, until stop: Int?) -> (runs: [[BundleManifest.Entry]], end: Int, closed: Bool)? {
        let first = text.skipSpace(start)
        if text.byte(at: first) == UInt8(ascii: "]") { return ([], first + 1, true) }
        let runs: [EntryRun]
        if (stop ?? text.count) - first >= ManifestDirectReader.splitSize, let (one, two) = EntryRun.halves(of: text, from: first, until: stop) {
            runs = [one, two]
        } else {
            let run = EntryRun(text: text)
            run.read(from: first, until: stop)
            guard run.entries != nil else { return nil }
            runs = [run]
        }
        return (runs.map { $0.take() }, runs[runs.count - 1].end, runs[runs.count - 1].closed)
    }

    /// The manifest's members after the array in `text` (which starts just after the array's `]`): `,`
    /// then members then `}`, and only white space after; its entries empty.
    private static func trailer(_ text: JSONBytes) -> BundleManifest? {
        let comma = text.skipSpace(0)
        guard text.byte(at: comma) == UInt8(ascii: ",") else { return nil }
        // The members read as an object of their own: `{` in place of the comma.
        var object = [UInt8](UnsafeRawBufferPointer(rebasing: text.bytes[comma...]))
        object[0] = UInt8(ascii: "{")
        return object.withUnsafeBytes { raw in
            let members = JSONBytes(borrowing: raw)
            let reader = Reader(text: members)
            guard let manifest = try? reader.manifest(at: 0, entries: []),
                  members.skipSpace(reader.lastEnd) == members.count else { return nil }
            return manifest
        }
    }

    /// About how many entries a manifest of `size` bytes holds, from the first `read` entries in `bytes`
    /// bytes, with a little to spare (an entry list that must grow holds up to twice as much for a while).
    private static func estimatedCount(read: Int, bytes: Int, of size: UInt64) -> Int {
        guard read > 0, bytes > 0 else { return 0 }
        let perEntry = Double(bytes) / Double(read)
        return Int(min(Double(size) / perEntry * 1.02, Double(BundleManifest.maxEncodedSize))) + 16
    }
}

/// The part of a manifest's text in memory: a buffer filled from the stream, whose first bytes are the
/// unread rest of the previous chunk.
private struct Chunk {
    let stream: any ByteStream
    let limit: Int
    /// The least the buffer holds.
    let size: Int
    /// The manifest's place, for errors.
    let origin: String
    private var buffer: [UInt8] = []
    /// Bytes of ``buffer`` that hold text.
    private(set) var filled = 0
    /// True once the stream has ended.
    private(set) var atEnd = false
    /// Bytes read from the stream so far.
    private var total = 0

    init(stream: any ByteStream, limit: Int, size: Int, origin: String) {
        self.stream = stream
        self.limit = limit
        self.size = size
        self.origin = origin
    }

    /// True when the text starts with `prefix`.
    func startsWith(_ prefix: [UInt8]) -> Bool {
        filled >= prefix.count && buffer[0..<prefix.count].elementsEqual(prefix)
    }

    /// Keeps the text from `keep` on at the start of the buffer and fills the rest from the stream; with
    /// `growing`, the buffer doubles first (the text kept fills it: one entry longer than a chunk).
    mutating func fill(keepingFrom keep: Int = 0, growing: Bool = false) throws(AssetPackError) {
        shift(from: keep)
        let wanted = max(size, growing ? buffer.count * 2 : buffer.count)
        if buffer.count < wanted { buffer += [UInt8](repeating: 0, count: wanted - buffer.count) }
        while filled < buffer.count, !atEnd { try readMore() }
    }

    /// Keeps the text from `keep` on and reads the stream to its end (the members after the entries).
    mutating func readToEnd(keepingFrom keep: Int) throws(AssetPackError) {
        shift(from: keep)
        while !atEnd {
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: max(buffer.count, 4096)) }
            try readMore()
        }
    }

    /// Moves the text from `keep` on to the start of the buffer.
    private mutating func shift(from keep: Int) {
        guard keep > 0 else { return }
        let end = filled
        buffer.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[keep..<end])) }
        filled -= keep
    }

    private mutating func readMore() throws(AssetPackError) {
        let start = filled
        let read = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(ZipError) -> Int in try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[start...])) }
        }
        let count: Int
        do {
            count = try read.get()
        } catch {
            throw AssetPackError(error, path: origin)
        }
        if count == 0 {
            atEnd = true
            return
        }
        total += count
        guard total <= limit else { throw AssetPackError(ZipError(.limitExceeded, "data is larger than \(limit) bytes"), path: origin) }
        filled += count
    }

    /// The offset just after the last line break whose line ends in `,` (white space aside), or nil.
    func lastLineBreakAfterComma() -> Int? {
        var at = filled
        while let newline = buffer[..<at].lastIndex(of: 0x0A) {
            var before = newline
            while before > 0, buffer[before - 1] == 0x20 || buffer[before - 1] == 0x09 || buffer[before - 1] == 0x0D { before -= 1 }
            if before > 0, buffer[before - 1] == UInt8(ascii: ",") { return newline + 1 }
            at = newline
        }
        return nil
    }

    /// `body` with the text up to `end`, borrowed.
    func withText<Result>(upTo end: Int, _ body: (JSONBytes) -> Result) -> Result {
        buffer.withUnsafeBytes { body(JSONBytes(borrowing: UnsafeRawBufferPointer(rebasing: $0[0..<end]))) }
    }
}
