import AssetPackSystem

/// The install record of a tree (`installed.json.gz`), each of its lists — files, folders, links — read an entry at
/// a time in path order (``AssetPath``'s order), so that a record is read alongside a plan or a walk holding
/// only the entry at hand.
///
/// A record that says it is in path order (`"collation":"path"`) is read from its file. One without the
/// claim (an older one), or whose claim turned out false (``RecordList/inOrder``), is read whole and sorted
/// (``init(tree:sorting:)``): slower, never wrong.
struct OrderedRecord {
    /// The installed tree.
    let tree: Descriptor
    /// True when the lists are read whole and sorted.
    let isSorted: Bool

    /// The record of `tree`, read whole and sorted when it does not claim path order or `sorting` asks for it
    /// whatever it claims; nil when it has none, or it is not a record.
    init?(tree: Descriptor, sorting: Bool = false) {
        guard let files = Self.reader("files", of: tree) else { return nil }
        self.tree = tree
        isSorted = sorting || files.collation != InstallRecordJSON.collation
    }

    /// The files, in path order.
    func files() -> RecordList<InstallRecord.File> { list("files", \.path) { $0.nextFile() } }

    /// The folders, in path order (empty in a record written before folders were recorded).
    func directories() -> RecordList<InstallRecord.Directory> { list("directories", \.path) { $0.nextDirectory() } }

    /// The symbolic links, in path order (empty in a record written before links were recorded).
    func links() -> RecordList<InstallRecord.Link> { list("links", \.path) { $0.nextLink() } }

    private func list<Entry>(_ name: StaticString, _ path: @escaping (Entry) -> String,
                             _ next: @escaping (inout InstallRecordReader) -> Entry?) -> RecordList<Entry> {
        guard var reader = Self.reader(name, of: tree) else { return RecordList(entries: [], path: path) }
        guard isSorted else { return RecordList(reader: reader, path: path, next: next) }
        var entries: [Entry] = []
        while let entry = next(&reader) { entries.append(entry) }
        var list = RecordList(entries: entries.sorted { AssetPath.precedes(Array(path($0).utf8), Array(path($1).utf8)) },
                              path: path)
        list.isBroken = reader.isBroken
        return list
    }

    /// A reader of the list `name` of the record in `tree`, through a descriptor of its own (a reader reads
    /// from where its descriptor is).
    private static func reader(_ name: StaticString, of tree: Descriptor) -> InstallRecordReader? {
        InstallRecord.recordFile(of: tree).flatMap { InstallRecordReader.list(name, of: $0, limit: InstallRecord.maxRecordSize) }
    }
}

/// One list of an ``OrderedRecord``, read an entry at a time: the entry at hand (``head``) and its path's bytes.
struct RecordList<Entry> {
    private var reader: InstallRecordReader?
    private let next: ((inout InstallRecordReader) -> Entry?)?
    private var entries: [Entry]
    private var position = 0
    private let pathOf: (Entry) -> String
    /// The entry at hand and its path's bytes; nil at the end of the list.
    private(set) var head: (entry: Entry, path: [UInt8])?
    /// False once an entry came before the one before it: a record that claims path order falsely.
    private(set) var inOrder = true
    /// True when the list ended in text that is not a record's.
    fileprivate(set) var isBroken = false

    fileprivate init(reader: InstallRecordReader, path: @escaping (Entry) -> String,
                     next: @escaping (inout InstallRecordReader) -> Entry?) {
        self.reader = reader
        self.next = next
        entries = []
        pathOf = path
        advance()
    }

    fileprivate init(entries: [Entry], path: @escaping (Entry) -> String) {
        reader = nil
        next = nil
        self.entries = entries
        pathOf = path
        advance()
    }

    /// Steps to the next entry.
    mutating func advance() {
        let entry: Entry?
        if var current = reader, let next {
            entry = next(&current)
            isBroken = current.isBroken
            reader = current
        } else {
            entry = position < entries.count ? entries[position] : nil
            position += 1
        }
        let previous = head?.path
        head = entry.map { ($0, Array(pathOf($0).utf8)) }
        if let previous, let path = head?.path, AssetPath.precedes(path, previous) { inOrder = false }
    }

    /// Steps past the entries whose path comes before `key`, handing each to `passed`.
    mutating func skip(before key: [UInt8], _ passed: (Entry, [UInt8]) -> Void = { _, _ in }) {
        while let current = head, AssetPath.precedes(current.path, key) {
            passed(current.entry, current.path)
            advance()
        }
    }

    /// True when the entry at hand lies below the folder `path` (its path starts with `path` and a `/`).
    func isBelow(_ path: [UInt8]) -> Bool {
        guard let current = head?.path, current.count > path.count, current[path.count] == UInt8(ascii: "/") else { return false }
        return current.starts(with: path)
    }
}
