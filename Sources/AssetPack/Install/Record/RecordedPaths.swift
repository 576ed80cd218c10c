import AssetPackSystem

/// Which paths of an installed tree its record (`installed.json`) claims, asked in walk order: what the sweep
/// for unknown entries (``UnknownEntries``) needs. A record in path order (`"collation":"path"`, every record
/// written since 2026-11-28) is read alongside the walk — its files and links one entry at a time, its folders
/// (and the folders above them) as a set of 64-bit hashes — so an upgrade of a million files holds a few
/// megabytes of it at most. An older record is looked up in its index (``RecordedEntryIndex``).
///
/// The walk asks in the record's path order (``AssetPath``'s, each `/` the lowest byte: a folder's entries come
/// right after it, before its siblings), which is a walk that takes each folder's names in byte order: each
/// path asked about comes after the last one (a folder's ``isFolder(_:)`` after its ``isEntry(_:)``).
final class RecordedPaths {
    private var files: ListCursor?
    private var links: ListCursor?
    private var folders: Set<UInt64> = []
    private var index: RecordedEntryIndex?

    /// The record of `tree`; nil when it has none or it is not a record. Each list is read through a descriptor
    /// of its own (a reader reads from where its descriptor is).
    init?(tree: Descriptor) {
        func list(_ name: StaticString) -> InstallRecordReader? {
            InstallRecord.recordFile(of: tree).flatMap { InstallRecordReader.list(name, of: $0, limit: InstallRecord.maxRecordSize) }
        }
        guard let files = list("files") else { return nil }
        guard files.collation == InstallRecordJSON.collation else {
            guard let built = RecordedEntryIndex.of(tree) else { return nil }
            index = built
            return
        }
        self.files = ListCursor(files) { $0.nextFile()?.path }
        links = list("links").map { ListCursor($0) { $0.nextLink()?.path } }
        if var folderList = list("directories") {
            while let folder = folderList.nextDirectory() {
                var path = Substring(folder.path)
                while !path.isEmpty, folders.insert(Self.hash(path.utf8)).inserted, let slash = path.lastIndex(of: "/") {
                    path = path[..<slash]
                }
            }
        }
    }

    /// The record of `tree` through its index, whatever order it is in; nil when it has none.
    init?(indexing tree: Descriptor) {
        guard let index = RecordedEntryIndex.of(tree) else { return nil }
        self.index = index
    }

    /// Reads the files and links the walk did not reach; true when every entry read came after the one before
    /// it (always, for an index): the answers given were the record's.
    func readToEndInOrder() -> Bool {
        guard index == nil else { return true }
        let end = [UInt8](repeating: 0xFF, count: 1)
        _ = files!.reaches(end)
        _ = links?.reaches(end)
        return files!.inOrder && links?.inOrder != false
    }

    /// True when the record lists `path` as a file or a symbolic link.
    func isEntry(_ path: [UInt8]) -> Bool {
        if let index { return lookUp(path, in: index).map { $0 == .file || $0 == .link } ?? false }
        return files!.reaches(path) == .equal || links?.reaches(path) == .equal
    }

    /// True when the record lists `path` as a folder or lists something below it.
    func isFolder(_ path: [UInt8]) -> Bool {
        if let index { return lookUp(path, in: index).map { $0 == .directory || $0 == .impliedDirectory } ?? false }
        if folders.contains(Self.hash(path)) { return true }
        let key = path + [UInt8(ascii: "/")]
        return files!.reaches(key) == .below || links?.reaches(key) == .below
    }

    private func lookUp(_ path: [UInt8], in index: RecordedEntryIndex) -> RecordedEntryIndex.Kind? {
        path.withUnsafeBytes { index.find($0) }.map { index[$0].kind }
    }

    private static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        Array(bytes).withUnsafeBytes { MurmurHash64A.hash($0, seed: 0x243F_6A88_85A3_08D3) }
    }

    /// One list of the record, read on as the walk's keys grow.
    private struct ListCursor {
        enum Meeting { case before, equal, below }
        private var reader: InstallRecordReader
        private let next: (inout InstallRecordReader) -> String?
        private var head: [UInt8]?
        /// False once an entry did not come after the one before it.
        private(set) var inOrder = true

        init(_ reader: InstallRecordReader, next: @escaping (inout InstallRecordReader) -> String?) {
            self.reader = reader
            self.next = next
            head = next(&self.reader).map { Array($0.utf8) }
        }

        /// Reads on to the first entry not before `key`: `.equal` when it is `key`, `.below` when `key` is a
        /// folder's key (it ends in `/`) and the entry lies below that folder, `.before` otherwise.
        mutating func reaches(_ key: [UInt8]) -> Meeting {
            while let current = head, AssetPath.precedes(current, key) {
                head = next(&reader).map { Array($0.utf8) }
                if let following = head, !AssetPath.precedes(current, following) { inOrder = false }
            }
            guard let current = head else { return .before }
            if current == key { return .equal }
            return current.starts(with: key) && key.last == UInt8(ascii: "/") ? .below : .before
        }
    }
}
