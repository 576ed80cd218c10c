/// The JSON text of the install record (``InstallRecord``; `installed.json.gz` holds it compressed), written
/// entry by entry into one reused byte buffer and handed over in pieces of about 64 KiB: what `JSONEncoder` with
/// sorted keys and unescaped slashes writes.
/// Keys are written in sorted order by hand, so the order of the calls is the format:
/// ``begin(directories:)``, each ``directory(mode:path:)``, ``beginFiles(afterDirectories:)``, each
/// ``file(crc32:mode:path:sha256:size:)``, ``endFiles(format:links:)``, each ``link(path:target:)``,
/// then ``end(afterLinks:source:stamp:to:)``; ``handOver(to:)`` after any entry passes on a full piece.
struct InstallRecordJSON {
    private var out: [UInt8] = []
    /// Entries of the current list so far.
    private var count = 0
    private static let piece = 64 * 1024

    /// An empty text.
    init() { out.reserveCapacity(Self.piece + 4096) }

    /// Hands the text so far to `emit` once it is a whole piece (about 64 KiB), and starts the next.
    mutating func handOver<Failure: Error>(to emit: (borrowing [UInt8]) throws(Failure) -> Void) throws(Failure) {
        guard out.count >= Self.piece else { return }
        try emit(out)
        out.removeAll(keepingCapacity: true)
    }

    /// Hands all the text so far to `emit` (none when there is none), and starts the next piece.
    mutating func handOverAll<Failure: Error>(to emit: (borrowing [UInt8]) throws(Failure) -> Void) throws(Failure) {
        guard !out.isEmpty else { return }
        try emit(out)
        out.removeAll(keepingCapacity: true)
    }

    /// Hands the text written since the last hand-over (one entry, when called after each) to `body`, and
    /// forgets it: the next entry is written as the first of a list, without a comma.
    mutating func takeEntry<Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Void) throws(Failure) {
        defer {
            out.removeAll(keepingCapacity: true)
            count = 0
        }
        try out.withUnsafeBufferPointer { (entry) throws(Failure) in try body(entry) }
    }

    /// `{`, ``collation`` when the lists are `inPathOrder`, the number of entries of each list (`counts`, when
    /// given: a reader of an empty list then stops before the others, ``InstallRecordReader``), and the start of
    /// the folder list when there is one.
    mutating func begin(directories: Bool, inPathOrder: Bool = false, counts: InstallRecord.Counts? = nil) {
        literal("{")
        if inPathOrder { literal(#""collation":"path","#) }
        if let counts {
            literal(#""counts":{"directories":"#)
            number(UInt64(counts.directories))
            literal(#","files":"#)
            number(UInt64(counts.files))
            literal(#","links":"#)
            number(UInt64(counts.links))
            literal("},")
        }
        if directories { literal(#""directories":["#) }
    }

    /// The first member of a record whose lists are each in path order (``AssetPath/precedes(_:_:)``), as every
    /// record ``InstallRecordLists`` writes is: `"collation":"path"`, first so that a reader of one list knows it
    /// before the list (``RecordCursor``).
    static let collation = "path"

    /// One folder.
    mutating func directory(mode: UInt32, path: String) {
        separate()
        literal(#"{"mode":"#)
        number(UInt64(mode))
        literal(#","path":"#)
        string(path)
        literal("}")
    }

    /// The end of the folder list (when there was one) and the start of the file list.
    mutating func beginFiles(afterDirectories: Bool) {
        if afterDirectories { literal("],") }
        literal(#""files":["#)
        count = 0
    }

    /// One file.
    mutating func file(crc32: UInt32?, mode: UInt32, path: String, sha256: String?, size: UInt64, onDisk: OnDisk? = nil) {
        file(crc32: crc32, mode: mode, path: path, size: size, onDisk: onDisk, hashed: sha256 != nil) { json in json.string(sha256!) }
    }

    /// One file, its SHA-256 held as bytes.
    mutating func file(crc32: UInt32?, mode: UInt32, path: String, digest: SHA256Digest?, size: UInt64, onDisk: OnDisk?) {
        file(crc32: crc32, mode: mode, path: path, size: size, onDisk: onDisk, hashed: digest != nil) { json in
            json.out.append(UInt8(ascii: "\""))
            digest!.appendHex(to: &json.out)
            json.out.append(UInt8(ascii: "\""))
        }
    }

    /// Which file on the device an installed file is (``InstallRecord/File/inode``, ``InstallRecord/File/mtime``).
    typealias OnDisk = (inode: UInt64, mtime: UInt64)

    /// One file, its SHA-256 (when `hashed`) written by `hash`.
    private mutating func file(crc32: UInt32?, mode: UInt32, path: String, size: UInt64, onDisk: OnDisk?, hashed: Bool,
                               hash: (inout InstallRecordJSON) -> Void) {
        separate()
        literal("{")
        if let crc32 {
            literal(#""crc32":"#)
            number(UInt64(crc32))
            literal(",")
        }
        if let onDisk {
            literal(#""inode":"#)
            number(onDisk.inode)
            literal(",")
        }
        literal(#""mode":"#)
        number(UInt64(mode))
        if let onDisk {
            literal(#","mtime":"#)
            number(onDisk.mtime)
        }
        literal(#","path":"#)
        string(path)
        if hashed {
            literal(#","sha256":"#)
            hash(&self)
        }
        literal(#","size":"#)
        number(size)
        literal("}")
    }

    /// The end of the file list, the format, and the start of the link list when there is one.
    mutating func endFiles(format: Int, links: Bool) {
        literal(#"],"format":"#)
        if format < 0 { literal("-") }
        number(UInt64(format.magnitude))
        literal(",")
        if links { literal(#""links":["#) }
        count = 0
    }

    /// One symbolic link.
    mutating func link(path: String, target: String) {
        separate()
        literal(#"{"path":"#)
        string(path)
        literal(#","target":"#)
        string(target)
        literal("}")
    }

    /// The end of the link list (when there was one), the fingerprint, the stamp, and the last piece.
    mutating func end<Failure: Error>(afterLinks: Bool, source: String?, stamp: String,
                                      to emit: (borrowing [UInt8]) throws(Failure) -> Void) throws(Failure) {
        if afterLinks { literal("],") }
        if let source {
            literal(#""source":"#)
            string(source)
            literal(",")
        }
        literal(#""stamp":"#)
        string(stamp)
        literal("}\n")
        try emit(out)
        out.removeAll(keepingCapacity: true)
    }

    // MARK: - Bytes

    /// A comma before every entry of a list but its first.
    private mutating func separate() {
        if count > 0 { out.append(UInt8(ascii: ",")) }
        count += 1
    }

    private mutating func literal(_ text: StaticString) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// `value` in decimal, as JSON (and `\(value)`) writes it.
    private mutating func number(_ value: UInt64) {
        if value < 10 { return out.append(UInt8(ascii: "0") &+ UInt8(value)) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            var rest = value
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    /// A JSON string (``JSONEscape/appendQuoted(_:to:)``).
    private mutating func string(_ text: String) {
        JSONEscape.appendQuoted(text, to: &out)
    }
}
