import AssetPackSystem

/// Reads `installed.json` (``InstallRecord``) from its file 64 KiB at a time, for the upgrade path: a
/// record of 50,000 files is about 10 MB of text, and reading it whole and decoding it with `JSONDecoder`
/// would add tens of MiB to the peak memory of an upgrade. Only the record's own shape is accepted — an
/// object whose `files` is an array of objects with `path` (string), `size` and `mode` (unsigned
/// integers), an optional `crc32` (unsigned integer or `null`) and an optional `sha256` (string), plus
/// `format`, `stamp`, an optional `source`, and optional `directories` (`path`, `mode`) and `links`
/// (`path`, `target`) — with keys in any order, any white space, and unknown members skipped. Anything else (bad
/// syntax, invalid UTF-8, a number that does not fit, a missing field) makes the whole record unreadable:
/// the tree is then treated as unknown and nothing in it is reused.
struct InstallRecordReader {
    /// Bytes come from here.
    private var input: ChunkedInput
    /// Nesting allowed inside skipped values.
    private static let maxDepth = 64
    /// Of a reader of one list (``list(_:of:limit:)``): the entries read, and whether its end (or bad text) was met.
    private var listed = 0
    private var listEnded = false
    /// Of a reader of one list: the record's `collation` when it came before the list (``InstallRecordJSON/collation``).
    private(set) var collation: String?

    private init(_ input: ChunkedInput) { self.input = input }

    /// Reads the record in `file` a piece at a time, handing each file, folder and link to the closures as
    /// it is read, in the order written; its other fields, or nil when it is not a record (what was
    /// handed over until then must then be dropped). What ``InstalledTreeCheck`` indexes, never whole.
    static func read(_ file: Descriptor, limit: Int, eachFile: (InstallRecord.File) -> Void,
                     eachDirectory: (InstallRecord.Directory) -> Void, eachLink: (InstallRecord.Link) -> Void) -> Header? {
        var reader = InstallRecordReader(ChunkedInput(file: file, limit: limit))
        return withoutActuallyEscaping(eachDirectory) { eachDirectory in
            withoutActuallyEscaping(eachLink) { eachLink in
                try? reader.record(eachFile: eachFile, eachDirectory: eachDirectory, eachLink: eachLink)
            }
        }
    }

    /// The record in `bytes`, or nil when it is not one (for tests).
    static func read(bytes: [UInt8]) -> InstallRecord? {
        whole(InstallRecordReader(ChunkedInput(bytes: bytes)))
    }

    private static func whole(_ start: InstallRecordReader) -> InstallRecord? {
        var reader = start
        var files: [InstallRecord.File] = [], directories: [InstallRecord.Directory] = [], links: [InstallRecord.Link] = []
        let header = try? reader.record(eachFile: { files.append($0) }, eachDirectory: { directories.append($0) },
                                        eachLink: { links.append($0) })
        guard let header else { return nil }
        return InstallRecord(format: header.format, stamp: header.stamp, files: files, source: header.source,
                             directories: header.listsDirectories ? directories : nil, links: header.listsLinks ? links : nil,
                             collation: header.collation)
    }

    /// Why a record is unreadable (never shown: the caller only sees nil).
    private struct Malformed: Error {}

    /// The record's fields other than its lists, and which optional lists it has.
    typealias Header = (format: Int, stamp: String, source: String?, listsDirectories: Bool, listsLinks: Bool, collation: String?)

    /// Reads the record, handing each file to `eachFile` (and each folder and link to the others; without
    /// them those lists are skipped); returns the rest.
    private mutating func record(eachFile: (InstallRecord.File) -> Void,
                                 eachDirectory: ((InstallRecord.Directory) -> Void)? = nil,
                                 eachLink: ((InstallRecord.Link) -> Void)? = nil) throws -> Header {
        var sawFiles = false, sawDirectories = false, sawLinks = false
        var format: Int?
        var stamp: String?
        var source: String?
        var collation: String?
        try members { (reader, key) in
            switch key {
            case "files":
                try reader.files(eachFile)
                sawFiles = true
            case "directories" where eachDirectory != nil:
                try reader.directories(eachDirectory!)
                sawDirectories = true
            case "links" where eachLink != nil:
                try reader.links(eachLink!)
                sawLinks = true
            case "format": format = Int(exactly: try reader.unsigned(max: UInt64(Int.max)))
            case "stamp": stamp = try reader.string()
            case "source": source = try reader.nullable { try $0.string() }
            case "collation": collation = try reader.string()
            default: try reader.skipValue(depth: 0)
            }
        }
        try skipWhiteSpace()
        guard try input.peek() == nil, sawFiles, let format, let stamp else { throw Malformed() }
        return (format, stamp, source, sawDirectories, sawLinks, collation)
    }

    private mutating func directories(_ eachDirectory: (InstallRecord.Directory) -> Void) throws {
        try elements { reader in eachDirectory(try reader.directory()) }
    }

    private mutating func links(_ eachLink: (InstallRecord.Link) -> Void) throws {
        try elements { reader in eachLink(try reader.link()) }
    }

    private mutating func files(_ eachFile: (InstallRecord.File) -> Void) throws {
        try elements { reader in eachFile(try reader.file()) }
    }

    /// One folder of the list.
    private mutating func directory() throws -> InstallRecord.Directory {
        let (path, mode) = try pathObject(with: "mode") { UInt32(try $0.unsigned(max: UInt64(UInt32.max))) }
        return InstallRecord.Directory(mode: mode, path: path)
    }

    /// One link of the list.
    private mutating func link() throws -> InstallRecord.Link {
        let (path, target) = try pathObject(with: "target") { try $0.string() }
        return InstallRecord.Link(path: path, target: target)
    }

    /// An object that has `path` (a string) and the member `key`, read by `value`; other members are skipped.
    private mutating func pathObject<Value>(with key: String, _ value: (inout InstallRecordReader) throws -> Value) throws -> (String, Value) {
        var path: String?
        var found: Value?
        try members { (reader, member) in
            switch member {
            case "path": path = try reader.string()
            case key: found = try value(&reader)
            default: try reader.skipValue(depth: 0)
            }
        }
        guard let path, let found else { throw Malformed() }
        return (path, found)
    }

    /// One file of the list.
    private mutating func file() throws -> InstallRecord.File {
        var path: String?
        var size: UInt64?
        var crc32: UInt32?
        var mode: UInt32?
        var sha256: String?
        try members { (reader, key) in
            switch key {
            case "path": path = try reader.string()
            case "size": size = try reader.unsigned(max: .max)
            case "crc32": crc32 = try reader.nullable { UInt32(try $0.unsigned(max: UInt64(UInt32.max))) }
            case "mode": mode = UInt32(try reader.unsigned(max: UInt64(UInt32.max)))
            case "sha256": sha256 = try reader.nullable { try $0.string() }
            default: try reader.skipValue(depth: 0)
            }
        }
        guard let path, let size, let mode else { throw Malformed() }
        return InstallRecord.File(path: path, size: size, crc32: crc32, mode: mode, sha256: sha256)
    }

    // MARK: - One list, an entry at a time

    /// A reader of the list `list` (`files`, `directories` or `links`) of the record in `file`, at its first
    /// entry (the members before it skipped): for ``nextFile()``, ``nextDirectory()`` and ``nextLink()``, which
    /// read one entry a call, so that a record is read alongside a plan or a walk in path order. Nil when the
    /// file is not a record with that list.
    static func list(_ list: String, of file: Descriptor, limit: Int) -> InstallRecordReader? {
        var reader = InstallRecordReader(ChunkedInput(file: file, limit: limit))
        do {
            try reader.skipWhiteSpace()
            try reader.expect(UInt8(ascii: "{"))
            while true {
                try reader.skipWhiteSpace()
                let key = try reader.string()
                try reader.skipWhiteSpace()
                try reader.expect(UInt8(ascii: ":"))
                try reader.skipWhiteSpace()
                if key == list {
                    try reader.expect(UInt8(ascii: "["))
                    return reader
                }
                if key == "collation" {
                    reader.collation = try reader.string()
                } else {
                    try reader.skipValue(depth: 0)
                }
                try reader.skipWhiteSpace()
                guard try reader.input.next() == UInt8(ascii: ",") else { return nil }
            }
        } catch {
            return nil
        }
    }

    /// The next file of the list (``list(_:of:limit:)``); nil at its end, and from text that is not a record's on.
    mutating func nextFile() -> InstallRecord.File? { nextEntry { try $0.file() } }

    /// The next folder of the list; nil at its end.
    mutating func nextDirectory() -> InstallRecord.Directory? { nextEntry { try $0.directory() } }

    /// The next link of the list; nil at its end.
    mutating func nextLink() -> InstallRecord.Link? { nextEntry { try $0.link() } }

    private mutating func nextEntry<Entry>(_ entry: (inout InstallRecordReader) throws -> Entry) -> Entry? {
        guard !listEnded else { return nil }
        do {
            try skipWhiteSpace()
            if try input.peek() == UInt8(ascii: "]") {
                listEnded = true
                return nil
            }
            if listed > 0 {
                try expect(UInt8(ascii: ","))
                try skipWhiteSpace()
            }
            listed += 1
            return try entry(&self)
        } catch {
            listEnded = true
            return nil
        }
    }

    // MARK: - JSON, as much as the record needs

    /// Calls `member` with each key of an object; `member` must read the value.
    private mutating func members(_ member: (inout InstallRecordReader, String) throws -> Void) throws {
        try items(from: UInt8(ascii: "{"), to: UInt8(ascii: "}")) { reader in
            let key = try reader.string()
            try reader.skipWhiteSpace()
            try reader.expect(UInt8(ascii: ":"))
            try reader.skipWhiteSpace()
            try member(&reader, key)
        }
    }

    /// Calls `element` for each element of an array; `element` must read it.
    private mutating func elements(_ element: (inout InstallRecordReader) throws -> Void) throws {
        try items(from: UInt8(ascii: "["), to: UInt8(ascii: "]"), element)
    }

    /// The comma-separated items between `open` and `close` (an object's members, an array's elements);
    /// `item` must read one, white space around it already skipped.
    private mutating func items(from open: UInt8, to close: UInt8, _ item: (inout InstallRecordReader) throws -> Void) throws {
        try expect(open)
        try skipWhiteSpace()
        if try input.peek() == close { input.advance(); return }
        while true {
            try skipWhiteSpace()
            try item(&self)
            try skipWhiteSpace()
            switch try input.next() {
            case UInt8(ascii: ","): continue
            case close: return
            default: throw Malformed()
            }
        }
    }

    /// `null` as nil, else what `value` reads.
    private mutating func nullable<Value>(_ value: (inout InstallRecordReader) throws -> Value) throws -> Value? {
        if try input.peek() == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try value(&self)
    }

    /// An unsigned integer in decimal, at most `max`.
    private mutating func unsigned(max: UInt64) throws -> UInt64 {
        var value: UInt64 = 0
        var digits = 0
        while let byte = try input.peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            if digits == 1 && value == 0 { throw Malformed() }  // no leading zeros
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry, sum <= max else { throw Malformed() }
            value = sum
            digits += 1
            input.advance()
        }
        guard digits > 0 else { throw Malformed() }
        return value
    }

    /// A string, its escapes decoded; the UTF-8 must be valid.
    private mutating func string() throws -> String {
        try expect(UInt8(ascii: "\""))
        var bytes: [UInt8] = []
        while true {
            guard let byte = try input.next() else { throw Malformed() }
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: bytes, as: UTF8.self) else { throw Malformed() }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &bytes)
            case 0..<0x20:
                throw Malformed()
            default:
                bytes.append(byte)
            }
        }
    }

    /// The character after a backslash, appended to `bytes` as UTF-8.
    private mutating func escape(into bytes: inout [UInt8]) throws {
        guard let byte = try input.next() else { throw Malformed() }
        if let simple = JSONEscape.simple(byte) { return bytes.append(simple) }
        guard byte == UInt8(ascii: "u") else { throw Malformed() }
        let unit = try hex4()
        var low: UInt32?
        if JSONEscape.isHighSurrogate(unit) {  // its low half must follow
            try expect(UInt8(ascii: "\\"))
            try expect(UInt8(ascii: "u"))
            low = try hex4()
        }
        guard JSONEscape.appendScalar(unit, low: low, to: &bytes) else { throw Malformed() }
    }

    private mutating func hex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try input.next(), let digit = JSONEscape.hexValue(byte) else { throw Malformed() }
            value = value << 4 | digit
        }
        return value
    }

    /// Any JSON value, read and dropped (an unknown member).
    private mutating func skipValue(depth: Int) throws {
        guard depth < Self.maxDepth, let byte = try input.peek() else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "{"): try members { (reader, _) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try elements { reader in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            let numeric = Set("+-0123456789.eE".utf8)
            var any = false
            while let next = try input.peek(), numeric.contains(next) { input.advance(); any = true }
            guard any else { throw Malformed() }
        }
    }

    private mutating func literal(_ word: String) throws {
        for byte in word.utf8 { try expect(byte) }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard try input.next() == byte else { throw Malformed() }
    }

    private mutating func skipWhiteSpace() throws {
        while let byte = try input.peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { input.advance() }
    }
}

/// The bytes of a file read 64 KiB at a time (or of an array), at most `limit` in all.
private struct ChunkedInput {
    private let file: Descriptor?
    private var buffer: [UInt8]
    private var position = 0
    private var total = 0
    private let limit: Int

    init(file: Descriptor, limit: Int) {
        self.file = file
        self.buffer = []
        self.limit = limit
    }

    init(bytes: [UInt8]) {
        self.file = nil
        self.buffer = bytes
        self.limit = bytes.count
    }

    /// The next byte without taking it; nil at the end.
    mutating func peek() throws -> UInt8? {
        if position == buffer.count {
            try refill()
            if position == buffer.count { return nil }
        }
        return buffer[position]
    }

    /// Takes the byte ``peek()`` returned.
    mutating func advance() { position += 1 }

    /// The next byte; nil at the end.
    mutating func next() throws -> UInt8? {
        let byte = try peek()
        if byte != nil { position += 1 }
        return byte
    }

    private mutating func refill() throws {
        guard let file else { return }
        if buffer.count != 64 * 1024 { buffer = [UInt8](repeating: 0, count: 64 * 1024) }
        let count = try buffer.withMutableBytesThrowingAssetPackError { (raw) throws(AssetPackError) -> Int in
            try io(file.fd.read(into: raw, path: file.path))
        }
        total += count
        guard total <= limit else {
            throw AssetPackError(.limitExceeded, "file is larger than \(limit) bytes", path: file.path)
        }
        if count < buffer.count { buffer.removeSubrange(count...) }
        position = 0
    }
}
