/// The lookup tables built once when an archive is opened: name → entry, and directory → children,
/// with directories synthesized from longer names (APKs and many jars have no directory entries).
struct ZipIndex: Sendable {
    private let positions: [String: Int]
    private let directories: [String: [String]]

    init(_ entries: [ZipEntry]) {
        var positions: [String: Int] = [:]
        positions.reserveCapacity(entries.count)
        var children: [String: Set<String>] = ["": []]
        for entry in entries {
            if positions[entry.name] == nil { positions[entry.name] = entry.index }
            let parts = entry.name.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
            var parent = ""
            for (depth, part) in parts.enumerated() {
                children[parent, default: []].insert(part)
                parent = parent.isEmpty ? part : parent + "/" + part
                let isLast = depth == parts.count - 1
                if !isLast || entry.kind == .directory { children[parent, default: []] = children[parent] ?? [] }
            }
        }
        self.positions = positions
        self.directories = children.mapValues { $0.sorted() }
    }

    func position(of name: String) -> Int? { positions[name] }

    /// Children of a directory given without a trailing slash ("" is the top).
    func children(of path: String) -> [String]? {
        var key = path
        while key.hasSuffix("/") { key.removeLast() }
        while key.hasPrefix("/") { key.removeFirst() }
        return directories[key]
    }
}
