import AssetPackSystem

/// Reads a manifest straight from its JSON text (``JSONBytes``), member by member, without going through
/// `Decodable`: for 50,000 entries the generic decoder's containers, coding paths and keys cost about
/// 100,000 instructions per entry, more than writing the file does. This reader takes the manifests the
/// packer writes and any other text whose every member has the expected type; for anything else (a
/// member name with escapes, a value of another type, a required member missing) it returns nil, and
/// ``BundleManifest/decode(_:origin:)`` leaves the text to `JSONBytesDecoder`, which decides and words
/// the error. So it reads what `Decodable` reads: unknown members ignored, `null` for an absent optional,
/// the last member of a name winning, integers only into integer types.
///
/// It reads the text in one pass and checks its syntax as it goes (``JSONBytes/root()`` is not run
/// first): every value it reads is checked by reading it, every member it does not know by
/// ``JSONBytes/skipValue(_:depth:)``, and nothing may follow the manifest but white space. So a text it
/// takes is one well-formed JSON value, as the decoder would require.
enum ManifestDirectReader {
    /// Texts shorter than this are read on one thread: a second costs more than it saves.
    static let splitSize = 1 << 20

    /// The manifest in `bytes`, or nil when this reader does not take the text on.
    static func manifest(_ bytes: [UInt8]) -> BundleManifest? {
        bytes.withUnsafeBytes { raw in
            let text = JSONBytes(borrowing: raw)
            let reader = Reader(text: text)
            guard let manifest = try? reader.manifest(at: text.skipSpace(0)), text.skipSpace(reader.lastEnd) == text.count else {
                return nil
            }
            return manifest
        }
    }
}

/// Thrown inside ``ManifestDirectReader`` when the text is not one it takes on.
struct NotTaken: Error {}

final class Reader {
    let text: JSONBytes
    /// Where the last value read started and ended: a member whose value it is need not be stepped over
    /// again to find its end.
    private var read: (start: Int, end: Int) = (-1, -1)
    /// Where the last value read ends.
    var lastEnd: Int { read.end }
    /// The path of the entry being read, and the archive the last packed entry named: a packed entry's
    /// name is usually its path, and consecutive entries name one archive, so those strings are shared
    /// rather than made again for every entry.
    private var entryPath: String?
    private var lastFile: String?
    private var lastMethod: String?

    init(text: JSONBytes) { self.text = text }

    /// The manifest object at `offset`; with `preRead`, the object holds the members after the entries
    /// array and those are the entries (one more `entries` member is not taken on).
    func manifest(at offset: Int, entries preRead: [BundleManifest.Entry]? = nil) throws(NotTaken) -> BundleManifest {
        var format: Int?, identity: String?, threshold: UInt64?, generator: String?, entries = preRead
        var packing: String?
        try members(of: offset) { (name, value) throws(NotTaken) in
            switch name {
            case "format": format = try integer(value, Int.self)
            case "identity": identity = try string(value)
            case "threshold": threshold = try integer(value, UInt64.self)
            case "generator": generator = try string(value)
            case "entries":
                guard preRead == nil else { throw NotTaken() }
                entries = try entryArray(value)
            case "packing": packing = try optional(value) { (at) throws(NotTaken) in try string(at) }
            default: break
            }
        }
        guard let format, let identity, let threshold, let generator, let entries else { throw NotTaken() }
        return BundleManifest(format: format, identity: identity, threshold: threshold, generator: generator,
                              entries: entries, packing: packing)
    }

    /// The entries array at `offset`. A long one laid out one entry a line, as the packer writes it, is read
    /// in two halves on two threads, split at a line that starts an entry; anything else in order.
    private func entryArray(_ offset: Int) throws(NotTaken) -> [BundleManifest.Entry] {
        if let entries = entryHalves(offset) { return entries }
        return try array(offset) { (element) throws(NotTaken) in try entry(at: element) }
    }

    /// The entries read in two halves, or nil when the text does not split (``EntryRun/halves(of:from:until:)``).
    private func entryHalves(_ offset: Int) -> [BundleManifest.Entry]? {
        let first = text.skipSpace(offset + 1)
        guard text.byte(at: offset) == UInt8(ascii: "["), text.count - first >= ManifestDirectReader.splitSize,
              let (firstRun, second) = EntryRun.halves(of: text, from: first, until: nil), second.closed else { return nil }
        read = (offset, second.end)
        // Moved, not copied: the first half's buffer grows once and the second's is freed at once.
        var entries = firstRun.take()
        entries.append(contentsOf: second.take())
        return entries
    }

    /// The entry object at `offset`: as the packer lays it out, read by ``PackerEntryReader``; any other
    /// layout member by member (``memberwiseEntry(at:)``).
    func entry(at offset: Int) throws(NotTaken) -> BundleManifest.Entry {
        var shared = PackerEntryReader.Shared(file: lastFile, method: lastMethod)
        if let (entry, end) = PackerEntryReader.entry(in: text, at: offset, shared: &shared) {
            (lastFile, lastMethod) = (shared.file, shared.method)
            read = (offset, end)
            return entry
        }
        return try memberwiseEntry(at: offset)
    }

    /// The entry object at `offset`, read member by member (any layout ``entry(at:)`` takes).
    func memberwiseEntry(at offset: Int) throws(NotTaken) -> BundleManifest.Entry {
        var path: String?, kind: BundleManifest.Kind?, size: UInt64?, crc32: UInt32?, storage: BundleManifest.Storage?
        var mode: UInt32?, sha256: String?
        entryPath = nil
        try members(of: offset) { (name, value) throws(NotTaken) in
            switch name {
            case "path":
                path = try string(value)
                entryPath = path
            case "kind": kind = try word(value, [("file", .file), ("directory", .directory)])
            case "size": size = try optional(value) { (at) throws(NotTaken) in try integer(at, UInt64.self) }
            case "crc32": crc32 = try optional(value) { (at) throws(NotTaken) in try integer(at, UInt32.self) }
            case "storage": storage = try optional(value) { (at) throws(NotTaken) in try self.storage(at: at) }
            case "mode": mode = try optional(value) { (at) throws(NotTaken) in try integer(at, UInt32.self) }
            case "sha256": sha256 = try optional(value) { (at) throws(NotTaken) in try string(at) }
            default: break
            }
        }
        guard let path, let kind else { throw NotTaken() }
        return BundleManifest.Entry(path: path, kind: kind, size: size, crc32: crc32, storage: storage, mode: mode, sha256: sha256)
    }

    private func storage(at offset: Int) throws(NotTaken) -> BundleManifest.Storage {
        var form: BundleManifest.Storage.Form?, file: String?, entry: String?, method: String?, compressedSize: UInt64?
        var blocks: [[UInt64]]?, blockSHA256: [String]?, dataOffset: UInt64?
        try members(of: offset) { (name, value) throws(NotTaken) in
            switch name {
            case "form": form = try word(value, [("packed", .packed), ("plain", .plain)])
            case "file":
                file = try string(value, reusing: lastFile)
                lastFile = file
            case "entry": entry = try optional(value) { (at) throws(NotTaken) in try string(at, reusing: entryPath) }
            case "method":
                method = try optional(value) { (at) throws(NotTaken) in try string(at, reusing: lastMethod) }
                lastMethod = method
            case "compressedSize": compressedSize = try optional(value) { (at) throws(NotTaken) in try integer(at, UInt64.self) }
            case "blocks":
                blocks = try optional(value) { (at) throws(NotTaken) in
                    try array(at) { (pair) throws(NotTaken) in try array(pair) { (number) throws(NotTaken) in try integer(number, UInt64.self) } }
                }
            case "blockSHA256":
                blockSHA256 = try optional(value) { (at) throws(NotTaken) in try array(at) { (hash) throws(NotTaken) in try string(hash) } }
            case "dataOffset": dataOffset = try optional(value) { (at) throws(NotTaken) in try integer(at, UInt64.self) }
            default: break
            }
        }
        guard let form, let file else { throw NotTaken() }
        return BundleManifest.Storage(form: form, file: file, entry: entry, method: method, compressedSize: compressedSize,
                                      blocks: blocks, blockSHA256: blockSHA256, dataOffset: dataOffset)
    }

    /// Calls `body` with each member's name and where its value starts, in the text's order (so the last
    /// member of a name wins). Names with escapes are not taken on. A member `body` does not read is
    /// stepped over with its syntax checked.
    private func members(of offset: Int, _ body: (StaticName, Int) throws(NotTaken) -> Void) throws(NotTaken) {
        guard text.byte(at: offset) == UInt8(ascii: "{") else { throw NotTaken() }
        var failed = false
        let end = try? text.forEachElement(offset, object: true) { (key, value) throws(JSONSyntaxError) -> Int in
            guard let (end, escaped) = try? text.stringEnd(key), !escaped else {
                failed = true
                return text.count  // ends the walk: the text is not taken on
            }
            do { try body(StaticName(text: text, start: key + 1, end: end - 1), value) } catch {
                failed = true
                return text.count
            }
            return try self.end(of: value)
        }
        guard let end, !failed else { throw NotTaken() }
        read = (offset, end)
    }

    /// Where the value at `offset` ends: known when it is the value read last, else found by stepping
    /// over it with its syntax checked.
    private func end(of offset: Int) throws(JSONSyntaxError) -> Int {
        read.start == offset ? read.end : try text.skipValue(offset, depth: Self.skippedValueDepth)
    }

    /// The nesting depth charged to a value stepped over: deeper than any member the reader reads (a
    /// block's offset pair is 5 deep), so such a value may nest a little less than ``JSONBytes/maxDepth``;
    /// one nested deeper is not taken on, and the decoder, which counts exactly, decides.
    private static let skippedValueDepth = 8

    /// The elements of the array at `offset`, each read by `element`.
    private func array<Element>(_ offset: Int, _ element: (Int) throws(NotTaken) -> Element) throws(NotTaken) -> [Element] {
        guard text.byte(at: offset) == UInt8(ascii: "[") else { throw NotTaken() }
        var result: [Element] = []
        var failed = false
        let end = try? text.forEachElement(offset, object: false) { (_, value) throws(JSONSyntaxError) -> Int in
            do { result.append(try element(value)) } catch {
                failed = true
                return text.count
            }
            return try self.end(of: value)
        }
        guard let end, !failed else { throw NotTaken() }
        read = (offset, end)
        return result
    }

    /// Nil for `null`, else the value `read` makes of it.
    private func optional<Value>(_ offset: Int, _ read: (Int) throws(NotTaken) -> Value) throws(NotTaken) -> Value? {
        guard text.byte(at: offset) == UInt8(ascii: "n") else { return try read(offset) }
        guard let end = try? text.literal("null", at: offset) else { throw NotTaken() }
        self.read = (offset, end)
        return nil
    }

    private func string(_ offset: Int) throws(NotTaken) -> String {
        guard text.byte(at: offset) == UInt8(ascii: "\""), let (value, end) = try? text.stringAndEnd(at: offset) else { throw NotTaken() }
        read = (offset, end)
        return value
    }

    /// The value of the string at `offset` among `words`, matched on the text's bytes (no `String` made);
    /// any other string is not taken on.
    private func word<Value>(_ offset: Int, _ words: [(StaticString, Value)]) throws(NotTaken) -> Value {
        guard text.byte(at: offset) == UInt8(ascii: "\""), let (end, escaped) = try? text.stringEnd(offset), !escaped else { throw NotTaken() }
        let name = StaticName(text: text, start: offset + 1, end: end - 1)
        for (word, value) in words where word ~= name {
            read = (offset, end)
            return value
        }
        throw NotTaken()
    }

    /// The string at `offset`, or `previous` itself when the text spells exactly its bytes.
    private func string(_ offset: Int, reusing previous: String?) throws(NotTaken) -> String {
        if let previous, text.byte(at: offset) == UInt8(ascii: "\""), let (end, escaped) = try? text.stringEnd(offset), !escaped,
           text.equals(offset + 1, end - 1, previous) {
            read = (offset, end)
            return previous
        }
        return try string(offset)
    }

    private func integer<Value: FixedWidthInteger>(_ offset: Int, _ type: Value.Type) throws(NotTaken) -> Value {
        guard let first = text.byte(at: offset), first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              let (value, end) = try? text.integerAndEnd(at: offset, as: type) else { throw NotTaken() }
        read = (offset, end)
        return value
    }
}

/// Entries of a manifest's array read from one element onward by a reader of its own (on one thread).
final class EntryRun: @unchecked Sendable {
    let text: JSONBytes
    /// The entries read; nil when the text was not taken on.
    private(set) var entries: [BundleManifest.Entry]?
    /// Where reading stopped: the start of the element at or after the stop offset, or the array's end.
    private(set) var end = -1
    /// True when the array's closing `]` was reached.
    private(set) var closed = false

    init(text: JSONBytes) { self.text = text }

    /// The entries read, handed over (the run keeps none).
    func take() -> [BundleManifest.Entry] {
        defer { entries = nil }
        return entries ?? []
    }

    /// The entries from the element at `start` until the array closes or an element starts at or after
    /// `stop`, read in two runs on two threads: the text is split at a line that starts an element, about
    /// halfway, and the first run must end exactly where the second starts (a line break is never inside
    /// a string: JSON has none there). Nil when there is no such line or a run is not taken on.
    static func halves(of text: JSONBytes, from start: Int, until stop: Int?) -> (EntryRun, EntryRun)? {
        let limit = stop ?? text.count
        guard let split = lineStart(in: text, after: start + (limit - start) / 2), split < limit else { return nil }
        let second = EntryRun(text: text)
        let first = WorkerThreads.withHelpers(1, helper: { _ in second.read(from: split, until: stop) }) {
            let run = EntryRun(text: text)
            run.read(from: start, until: split)
            return run
        }
        guard first.entries != nil, first.end == split, !first.closed, second.entries != nil else { return nil }
        return (first, second)
    }

    /// The offset of the first `{` that starts a line at or after `offset`, with only white space
    /// before it on its line and a `,` ending the line before.
    private static func lineStart(in text: JSONBytes, after offset: Int) -> Int? {
        var at = offset
        while at < text.count {
            guard let newline = text.bytes[at...].firstIndex(of: 0x0A) else { return nil }
            let start = text.skipSpace(newline + 1)
            var before = newline
            while before > 0, let byte = text.byte(at: before - 1), byte == 0x20 || byte == 0x09 || byte == 0x0D { before -= 1 }
            if text.byte(at: start) == UInt8(ascii: "{"), text.byte(at: before - 1) == UInt8(ascii: ",") { return start }
            at = newline + 1
        }
        return nil
    }

    /// Reads entries from the element at `start` until the array closes or the next element starts at or
    /// after `stop`.
    func read(from start: Int, until stop: Int?) {
        let reader = Reader(text: text)
        var result: [BundleManifest.Entry] = []
        var at = start
        while true {
            guard let entry = try? reader.entry(at: at) else { return }
            result.append(entry)
            at = text.skipSpace(reader.lastEnd)
            switch text.byte(at: at) {
            case UInt8(ascii: ","):
                at = text.skipSpace(at + 1)
                if let stop, at >= stop {
                    (entries, end) = (result, at)
                    return
                }
            case UInt8(ascii: "]"):
                (entries, end, closed) = (result, at + 1, true)
                return
            default: return
            }
        }
    }
}

/// A member name in the text, compared with the names the reader knows without making a `String`.
private struct StaticName {
    let text: JSONBytes
    let start: Int
    let end: Int

    static func ~= (pattern: StaticString, name: StaticName) -> Bool {
        let count = pattern.utf8CodeUnitCount
        guard count == name.end - name.start else { return false }
        let bytes = name.text.bytes
        for index in 0..<count where pattern.utf8Start[index] != bytes[name.start + index] { return false }
        return true
    }
}

extension BundleManifest {
    /// A manifest of exactly these members, as read (no sorting, no identity computed).
    fileprivate init(format: Int, identity: String, threshold: UInt64, generator: String, entries: [Entry], packing: String?) {
        self.format = format
        self.identity = identity
        self.threshold = threshold
        self.generator = generator
        self.entries = entries
        self.packing = packing
    }
}
