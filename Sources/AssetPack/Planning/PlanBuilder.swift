import Foundation

/// Collects a plan's items and refuses two items that would land on the same place: exact duplicates,
/// a file and a directory with one name, and names equal up to case or Unicode normalization (which
/// collide on the case-insensitive, normalizing file systems of Apple platforms). Parent directories are
/// added as items of their own, so every directory is created explicitly.
struct PlanBuilder {
    private struct Seen {
        var path: AssetPath
        var kind: ExpansionItem.Kind
        var origin: String
        /// The item that brought this path in: itself, or a file below an implied folder.
        var cause: AssetPath

        /// `"a" (from x.zip)`, or `"a/" (the folder of "a/b.txt", from x.zip)` for an implied folder.
        var shown: String {
            cause == path ? "\"\(path)\" (from \(origin))" : "\"\(path)/\" (the folder of \"\(cause)\", from \(origin))"
        }
    }

    /// Folded key (``foldedKey(_:)``) → position in ``items``. Per item only the position is kept: what
    /// a conflict message needs besides the item is in ``originOfItem`` and ``impliedBy``.
    private var seen: [String: Int] = [:]
    private(set) var items: [ExpansionItem] = []
    /// Where each item came from, as a position in ``origins`` (there are few distinct origins).
    private var originOfItem: [UInt32] = []
    private var origins: [String] = []
    private var originPositions: [String: UInt32] = [:]
    /// Folders added because an item lies below them → that item.
    private var impliedBy: [Int: AssetPath] = [:]
    /// The folder of the last item added, whose folders are all in ``seen`` (siblings come in a row).
    private var lastParent: AssetPath?
    /// Bytes of all files added so far.
    private(set) var totalBytes: UInt64 = 0
    /// The most bytes the files may add up to (``ExpansionOptions/maxTotalBytes``).
    let maxTotalBytes: UInt64

    /// An empty plan whose files may add up to at most `maxTotalBytes`.
    init(maxTotalBytes: UInt64 = .max) { self.maxTotalBytes = maxTotalBytes }

    /// Adds `item` (and its missing parent directories); `origin` says where it came from, for messages.
    mutating func add(_ item: ExpansionItem, from origin: String) throws(AssetPackError) {
        guard !item.path.isRoot else { return }
        try PlanBuilder.checkReserved(item.path, origin: origin)
        let folder = item.path.parent
        if folder != lastParent {  // byte-wise equality: a sibling's folders are already in, checked
            var parent = AssetPath.root
            for component in item.path.components.dropLast() {
                parent = try parent.appending(component)
                try insert(.directory(parent), origin: origin, cause: item.path)
            }
            lastParent = folder
        }
        try insert(item, origin: origin, cause: item.path)
    }

    /// Makes room for `count` items at once, when the caller knows about how many there will be (an
    /// archive's entry count): no regrowth of the item list and the name table while they are added.
    mutating func reserve(_ count: Int) {
        items.reserveCapacity(count)
        seen.reserveCapacity(count)
    }

    /// Hands over the items in path order, leaving the builder empty. Items added in that order (a walk)
    /// are returned as they are; others are put in order in place, through a sorted list of positions,
    /// so no second copy of the items exists at any time.
    mutating func takeSortedItems() -> [ExpansionItem] {
        var result: [ExpansionItem] = []
        swap(&result, &items)
        seen = [:]
        var order: [Int]
        do {
            let keys = result.map(\.path.orderKey)
            if zip(keys, keys.dropFirst()).allSatisfy({ AssetPath.precedes($0, $1) }) { return result }
            order = result.indices.sorted { AssetPath.precedes(keys[$0], keys[$1]) }
        }
        // result[j] must become the item now at order[j]: follow each cycle of the permutation once.
        for start in order.indices where order[start] != start {
            let first = result[start]
            var position = start
            while true {
                let next = order[position]
                order[position] = position
                if next == start {
                    result[position] = first
                    break
                }
                result[position] = result[next]
                position = next
            }
        }
        return result
    }

    private mutating func insert(_ item: ExpansionItem, origin: String, cause: AssetPath) throws(AssetPackError) {
        let key = PlanBuilder.foldedKey(item.path)
        guard let previous = seen[key] else {
            try count(item, origin: origin)
            seen[key] = items.count
            if cause != item.path { impliedBy[items.count] = cause }
            originOfItem.append(position(ofOrigin: origin))
            items.append(item)
            return
        }
        let earlier = items[previous]
        let sameBytes = earlier.path.string.utf8.elementsEqual(item.path.string.utf8)
        if sameBytes && earlier.kind == .directory && item.kind == .directory { return }
        let first = Seen(path: earlier.path, kind: earlier.kind, origin: origins[Int(originOfItem[previous])],
                         cause: impliedBy[previous] ?? earlier.path)
        throw PlanBuilder.conflict(first, Seen(path: item.path, kind: item.kind, origin: origin, cause: cause))
    }

    private mutating func position(ofOrigin origin: String) -> UInt32 {
        if let last = origins.last, last == origin { return UInt32(origins.count - 1) }
        if let known = originPositions[origin] { return known }
        let position = UInt32(origins.count)
        origins.append(origin)
        originPositions[origin] = position
        return position
    }

    /// Adds a file's size to the total, enforcing ``maxTotalBytes``.
    private mutating func count(_ item: ExpansionItem, origin: String) throws(AssetPackError) {
        let (sum, overflow) = totalBytes.addingReportingOverflow(item.size)
        guard !overflow, sum <= maxTotalBytes else {
            throw AssetPackError(.limitExceeded, "\"\(item.path)\" (\(item.size) bytes) brings the expansion past its limit of "
                                 + "\(maxTotalBytes) bytes in all (ExpansionOptions.maxTotalBytes)", path: origin)
        }
        totalBytes = sum
    }

    private static func conflict(_ previous: Seen, _ item: Seen) -> AssetPackError {
        let first = previous.shown, second = item.shown
        if (previous.kind == .symlink && item.kind == .directory) || (previous.kind == .directory && item.kind == .symlink) {
            // A folder of that name exists only because some entry lies below it: that entry would be written through the link.
            return AssetPackError(.symlink, "\(first) and \(second): one is a symbolic link and the other a folder, so entries "
                                  + "would be written through the link; nothing is written through a link",
                                  path: item.path.string)
        }
        let reason: String
        // Swift's String equality is canonical equivalence, so compare the bytes.
        if !previous.path.string.utf8.elementsEqual(item.path.string.utf8) {
            reason = "\(first) and \(second) differ only in case or Unicode normalization"
        } else if previous.kind != item.kind && (previous.kind == .directory || item.kind == .directory) {
            reason = "\(first) and \(second): the name is both a file and a directory"
        } else {
            reason = "the name appears twice: \(first) and \(second)"
        }
        return AssetPackError(.conflict, reason, path: item.path.string)
    }

    /// The comparison key: each component in Unicode canonical composition (NFC), lowercased. An ASCII
    /// path (the usual case) is already NFC and lowercases byte by byte, so it skips Foundation's
    /// normalization, which would cost far more than the rest of planning.
    static func foldedKey(_ path: AssetPath) -> String {
        let components = path.components
        if components.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) {
            // Written straight into the key's storage: no joined path and no byte array first.
            let count = components.reduce(max(0, components.count - 1)) { $0 + $1.utf8.count }
            return String(unsafeUninitializedCapacity: count) { key in
                var end = 0
                for (index, component) in components.enumerated() {
                    if index > 0 {
                        key[end] = UInt8(ascii: "/")
                        end += 1
                    }
                    for byte in component.utf8 {
                        key[end] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                        end += 1
                    }
                }
                return end
            }
        }
        return path.components.map { $0.precomposedStringWithCanonicalMapping.lowercased() }.joined(separator: "/")
    }

    /// The prefix of the temporary names the installer writes under (reserved anywhere in a plan).
    static let temporaryPrefix = ".assetpack-tmp-"

    /// The record folder at the top of a destination. It keeps the hidden name bundles had before
    /// ``BundleManifest/reservedDirectory``: a destination is never packaged by another tool, and the
    /// record of every install made so far stays where the up-to-date check looks.
    static let recordDirectory = BundleManifest.legacyReservedDirectory

    /// Names beginning with ``recordDirectory`` at the top are assetpack's record; ``temporaryPrefix``
    /// anywhere is a temporary name the expander uses.
    static func checkReserved(_ path: AssetPath, origin: String) throws(AssetPackError) {
        let reservedTop = path.components.first?.hasPrefix(recordDirectory) == true
        let reservedAnywhere = path.components.contains { $0.hasPrefix(temporaryPrefix) }
        if reservedTop || reservedAnywhere {
            throw AssetPackError(.conflict, "the name is reserved for assetpack's own files (from \(origin))", path: path.string)
        }
    }
}
