import AssetPackSystem

/// The lookup tables of an archive: name → entry, and directory → children, with directories synthesized
/// from longer names (APKs and many jars have no directory entries); each is built at its first use.
/// Names are compared by their exact UTF-8 bytes (an archive may hold `é` and `e` + U+0301 as two entries),
/// read without a leading `./`, as every extractor reads them.
final class ZipIndex: @unchecked Sendable {
    /// A name compared byte for byte. It keeps the string it is made from (an entry's own name shares
    /// its storage), so a table of 50,000 names copies none of them.
    private struct Key: Hashable, Sendable {
        let text: String
        init(_ text: String) { self.text = text }
        init(_ text: Substring) { self.text = String(text) }

        static func == (lhs: Key, rhs: Key) -> Bool { Memory.sameBytes(lhs.text, rhs.text) }

        /// All bytes at once, as they are compared.
        func hash(into hasher: inout Hasher) {
            let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
        }
    }

    private let entries: [ZipEntry]
    private let monitor = Monitor()
    /// Guarded by `monitor`.
    private var positionTable: [Key: Int]?
    /// Guarded by `monitor`: lookups answered without the table so far.
    private var scans = 0
    /// Guarded by `monitor`.
    private var directoryTable: [Key: [String]]?

    init(_ entries: [ZipEntry]) { self.entries = entries }

    /// The position of the first entry named exactly `name` (a leading `./` aside, on either side). The first ``scansBeforeTable`` lookups go
    /// through the entries instead of building the table: a caller that asks for a name or two (is there
    /// a bundle manifest in this archive?) does not pay for a table of every name, which for an archive of
    /// 50,000 entries took 15 ms of an expansion's start, and for a million some 50 MB.
    /// - Complexity: O(entries) for the first few lookups, then O(1) on average (O(entries) once, to build the table).
    func position(of name: String) -> Int? {
        monitor.withLock {
            let wanted = EntryName.pathName(name)
            if positionTable == nil, scans < Self.scansBeforeTable {
                scans += 1
                return entries.firstIndex { Memory.sameBytes(wanted, EntryName.withoutLeadingCurrentFolder($0.name)) }
                    .map { entries[$0].index }
            }
            return positions()[Key(wanted)]
        }
    }

    /// Lookups answered by going through the entries before the table is built.
    static let scansBeforeTable = 4

    /// Children of a directory given with or without a trailing slash ("" is the top), sorted; nil when
    /// `path` is neither stated nor implied as a directory.
    /// - Complexity: O(1) on average (O(entries) once, for the first lookup).
    func children(of path: String) -> [String]? {
        var key = EntryName.withoutLeadingCurrentFolder(path)
        while key.hasSuffix("/") { key.removeLast() }
        while key.hasPrefix("/") { key.removeFirst() }
        let wanted = Key(key)
        return monitor.withLock { directories()[wanted] }
    }

    /// Only inside `monitor`.
    private func positions() -> [Key: Int] {
        if let positionTable { return positionTable }
        var positions: [Key: Int] = [:]
        positions.reserveCapacity(entries.count)
        for entry in entries {
            let key = Key(EntryName.pathName(entry.name))
            if positions[key] == nil { positions[key] = entry.index }
        }
        positionTable = positions
        return positions
    }

    /// Only inside `monitor`.
    private func directories() -> [Key: [String]] {
        if let directoryTable { return directoryTable }
        var children: [Key: [Key: String]] = [Key(""): [:]]
        // Entries usually come folder by folder: when an entry's folder is the previous entry's, only its
        // last component is new (the folders above it were recorded then).
        var previousFolder: String?
        for entry in entries {
            let parts = EntryName.withoutLeadingCurrentFolder(entry.name).unicodeScalars.split(separator: "/").map { String($0) }
            guard !parts.isEmpty else { continue }
            let folder = parts.count > 1 ? parts.dropLast().joined(separator: "/") : nil
            var parent = ""
            var start = 0
            if let folder, let previousFolder, Key(folder) == Key(previousFolder) {
                parent = folder
                start = parts.count - 1
            }
            for depth in start..<parts.count {
                let part = parts[depth]
                children[Key(parent), default: [:]][Key(part)] = part
                parent = parent.isEmpty ? part : parent + "/" + part
                let isLast = depth == parts.count - 1
                if (!isLast || entry.kind == .directory) && children[Key(parent)] == nil { children[Key(parent)] = [:] }
            }
            previousFolder = folder
        }
        let table = children.mapValues { names in
            // String order; canonically equivalent spellings (equal as Strings) by their bytes.
            names.values.sorted { $0 != $1 ? $0 < $1 : $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        directoryTable = table
        return table
    }
}
