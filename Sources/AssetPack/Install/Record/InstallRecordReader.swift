import AssetPackSystem

/// Reads the install record's JSON (``InstallRecord``) from its file 64 KiB at a time (``JSONPullParser`` over
/// ``RecordFileSource``, which inflates it), never whole. Only the record's own shape is accepted — an object whose `files` is an array of objects with `path`
/// (string), `size` and `mode` (unsigned integers), an optional `crc32` (unsigned integer or `null`) and an
/// optional `sha256` (string), plus `format`, `stamp`, an optional `source`, `collation` and `counts` (a reader
/// of a list that `counts` says is empty stops there), and optional
/// `directories` (`path`, `mode`) and `links` (`path`, `target`) — with keys in any order, any white space, and
/// unknown members skipped. Anything else in a list (bad syntax, invalid UTF-8, a number that does not fit, a
/// missing field, and compressed data that is damaged, cut short or followed by other bytes, found at the latest
/// when the list ends) ends it as broken (``isBroken``): the record is then unreadable, and nothing in the tree
/// is reused.
///
/// A reader reads one list, an entry a call (``list(_:of:limit:)``, ``nextFile()``, ``nextDirectory()``,
/// ``nextLink()``), so that a record is read alongside a plan or a walk (``OrderedRecord``).
struct InstallRecordReader {
    /// The record's text, a chunk at a time (``JSONPullParser``), from its file (``RecordFileSource``).
    private let parser: JSONPullParser
    private let source: RecordFileSource
    /// Of a reader of one list: the record's `collation` when it came before the list
    /// (``InstallRecordJSON/collation``), and whether the list's end (or bad text) was met.
    private(set) var collation: String?
    private var listEnded = false
    /// True when the list ended in text that is not a record's (a reader of one list).
    private(set) var isBroken = false

    /// A reader of the record in `file`, read from where the file is.
    private init(_ file: Descriptor, limit: Int) {
        let source = RecordFileSource(file, limit: limit)
        self.source = source
        // The code is never shown: an unreadable record is only nil.
        parser = JSONPullParser(chunkSize: 64 << 10, limit: limit, code: .io, origin: file.path) { (buffer) throws(AssetPackError) in
            try source.read(into: buffer)
        }
    }

    /// One folder of the list.
    private func directory() throws(AssetPackError) -> InstallRecord.Directory {
        let (path, mode) = try pathObject(with: "mode") { () throws(AssetPackError) in UInt32(try parser.unsigned(max: UInt64(UInt32.max))) }
        return InstallRecord.Directory(mode: mode, path: path)
    }

    /// One link of the list.
    private func link() throws(AssetPackError) -> InstallRecord.Link {
        let (path, target) = try pathObject(with: "target") { () throws(AssetPackError) in try parser.string() }
        return InstallRecord.Link(path: path, target: target)
    }

    /// An object that has `path` (a string) and the member `key`, read by `value`; other members are skipped.
    private func pathObject<Value>(with key: StaticString, _ value: () throws(AssetPackError) -> Value) throws(AssetPackError) -> (String, Value) {
        var path: String?
        var found: Value?
        try parser.enterObject()
        while let name = try parser.nextMember() {
            if "path" ~= name {
                path = try parser.string()
            } else if key ~= name {
                found = try value()
            } else {
                try parser.skipValue()
            }
        }
        guard let path, let found else { throw parser.refusal("an element lacks \"path\" or \"\(key)\"") }
        return (path, found)
    }

    /// One file of the list.
    private func file() throws(AssetPackError) -> InstallRecord.File {
        var path: String?
        var size: UInt64?
        var crc32: UInt32?
        var mode: UInt32?
        var sha256: String?
        var inode: UInt64?
        var mtime: UInt64?
        try parser.enterObject()
        while let name = try parser.nextMember() {
            switch name {
            case "path": path = try parser.string()
            case "size": size = try parser.unsigned(max: .max)
            case "crc32": crc32 = try parser.takeNull() ? nil : UInt32(try parser.unsigned(max: UInt64(UInt32.max)))
            case "mode": mode = UInt32(try parser.unsigned(max: UInt64(UInt32.max)))
            case "sha256": sha256 = try parser.takeNull() ? nil : try parser.string()
            case "inode": inode = try parser.unsigned(max: .max)
            case "mtime": mtime = try parser.unsigned(max: .max)
            default: try parser.skipValue()
            }
        }
        guard let path, let size, let mode else { throw parser.refusal("a file lacks \"path\", \"size\" or \"mode\"") }
        return InstallRecord.File(path: path, size: size, crc32: crc32, mode: mode, sha256: sha256, inode: inode, mtime: mtime)
    }

    // MARK: - One list, an entry at a time

    /// A reader of the list `list` (`files`, `directories` or `links`) of the record in `file`, at its first
    /// entry (the members before it skipped): for ``nextFile()``, ``nextDirectory()`` or ``nextLink()``, which
    /// reads one entry a call, so that a record is read alongside a plan in path order. Nil when the file is not
    /// a record with that list.
    static func list(_ list: StaticString, of file: Descriptor, limit: Int) -> InstallRecordReader? {
        var reader = InstallRecordReader(file, limit: limit)
        do {
            try reader.parser.enterObject()
            while let name = try reader.parser.nextMember() {
                if list ~= name {
                    try reader.parser.enterArray()
                    return reader
                }
                if "collation" ~= name {
                    reader.collation = try reader.parser.string()
                } else if "counts" ~= name {
                    if try reader.listIsEmpty(list) {
                        reader.listEnded = true
                        return reader
                    }
                } else {
                    try reader.parser.skipValue()
                }
            }
        } catch {}
        return nil
    }

    /// Reads the record's `counts` (an object of unsigned integers, other members skipped): true when it says
    /// the list `list` has no entry.
    private func listIsEmpty(_ list: StaticString) throws(AssetPackError) -> Bool {
        var empty = false
        try parser.enterObject()
        while let name = try parser.nextMember() {
            if list ~= name {
                empty = try parser.unsigned(max: .max) == 0
            } else {
                try parser.skipValue()
            }
        }
        return empty
    }

    /// The next file of the list (``list(_:of:limit:)``); nil at its end, and from text that is not a record's on.
    mutating func nextFile() -> InstallRecord.File? {
        let reader = self
        return nextEntry { () throws(AssetPackError) in try reader.file() }
    }

    /// The next folder of the list; nil at its end, and from text that is not a record's on.
    mutating func nextDirectory() -> InstallRecord.Directory? {
        let reader = self
        return nextEntry { () throws(AssetPackError) in try reader.directory() }
    }

    /// The next symbolic link of the list; nil at its end, and from text that is not a record's on.
    mutating func nextLink() -> InstallRecord.Link? {
        let reader = self
        return nextEntry { () throws(AssetPackError) in try reader.link() }
    }

    private mutating func nextEntry<Entry>(_ entry: () throws(AssetPackError) -> Entry) -> Entry? {
        guard !listEnded else { return nil }
        do {
            if try parser.nextElement() { return try entry() }
            // The list is whole; the rest of a compressed record is read to check its length and CRC-32.
            try source.checkRest()
        } catch {
            isBroken = true
        }
        listEnded = true
        return nil
    }
}
