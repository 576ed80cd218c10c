/// The lookup tables built once when an archive is opened: name → entry, and directory → children,
/// with directories synthesized from longer names (APKs and many jars have no directory entries).
///
/// Names are compared by their exact UTF-8 bytes, never normalized: Swift's `String` equality treats
/// canonically equivalent spellings (`é` and `e` + U+0301) as equal, but an archive may hold both as
/// different entries.
struct ZipIndex: Sendable {
    /// A name compared byte for byte.
    private struct Key: Hashable, Sendable {
        let bytes: [UInt8]
        init(_ text: some StringProtocol) { bytes = Array(text.utf8) }
    }

    private let positions: [Key: Int]
    private let directories: [Key: [String]]

    init(_ entries: [ZipEntry]) {
        var positions: [Key: Int] = [:]
        positions.reserveCapacity(entries.count)
        var children: [Key: [Key: String]] = [Key(""): [:]]
        for entry in entries {
            let key = Key(entry.name)
            if positions[key] == nil { positions[key] = entry.index }
            let parts = entry.name.unicodeScalars.split(separator: "/").map { String($0) }
            var parent = ""
            for (depth, part) in parts.enumerated() {
                children[Key(parent), default: [:]][Key(part)] = part
                parent = parent.isEmpty ? part : parent + "/" + part
                let isLast = depth == parts.count - 1
                if (!isLast || entry.kind == .directory) && children[Key(parent)] == nil { children[Key(parent)] = [:] }
            }
        }
        self.positions = positions
        self.directories = children.mapValues { names in
            // String order; canonically equivalent spellings (equal as Strings) by their bytes.
            names.values.sorted { $0 != $1 ? $0 < $1 : $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }

    /// The position of the first entry named exactly `name`.
    /// - Complexity: O(1) on average.
    func position(of name: String) -> Int? { positions[Key(name)] }

    /// Children of a directory given with or without a trailing slash ("" is the top), sorted; nil when
    /// `path` is neither stated nor implied as a directory.
    /// - Complexity: O(1) on average.
    func children(of path: String) -> [String]? {
        var key = Substring(path)
        while key.hasSuffix("/") { key.removeLast() }
        while key.hasPrefix("/") { key.removeFirst() }
        return directories[Key(key)]
    }
}
