import AssetPackSystem
import Foundation

/// Collects a plan's items and refuses two items that would land on the same place: exact duplicates,
/// a file and a directory with one name, and names equal up to case or Unicode normalization (which
/// collide on the case-insensitive, normalizing file systems of Apple platforms). Parent directories are
/// added as items of their own, with the default permissions until a later entry of their own states others.
package struct PlanBuilder {
    private struct Seen {
        var path: AssetPath
        var kind: ExpansionItem.Kind
        var origin: String
        /// The item that brought this path in: itself, or a file below an implied folder.
        var cause: AssetPath

        /// `"a" (from x.zip)`, or `"a/" (the folder of "a/b.txt", from x.zip)` for an implied folder; without
        /// the origin when it is `source`, which the error names as its path.
        func shown(source: String) -> String {
            let from = PlanBuilder.from(origin, source: source)
            return cause == path ? "\"\(path)\"\(from.map { " (\($0))" } ?? "")"
                : "\"\(path)/\" (the folder of \"\(cause)\"\(from.map { ", \($0)" } ?? ""))"
        }
    }

    /// The items' paths by folded key (``foldedKey(_:)``). Per item only the position is kept: what a
    /// conflict message needs besides the item is in ``originOfItem`` and ``impliedBy``.
    private var names = FoldedNames()
    private(set) var items: [ExpansionItem] = []
    /// Where each item came from, as a position in ``origins`` (there are few distinct origins).
    private var originOfItem: [UInt32] = []
    private var origins: [String] = []
    private var originPositions: [String: UInt32] = [:]
    /// Folders added because an item lies below them → that item.
    private var impliedBy: [Int: AssetPath] = [:]
    /// The last item added, whose folders are all in ``names`` (siblings come in a row).
    private var lastPath: AssetPath?
    /// Bytes of all files added so far.
    private(set) var totalBytes: UInt64 = 0
    /// The most bytes the files may add up to (``ExpansionOptions/maxTotalBytes``).
    let maxTotalBytes: UInt64
    /// The file or folder on disk the plan's source reads (``SourceAccess/fileName``): the path of every
    /// error about an item, whose ``AssetPackError/entry`` is the item's path.
    let source: String

    /// An empty plan of the source at `source` whose files may add up to at most `maxTotalBytes`.
    init(source: String, maxTotalBytes: UInt64 = .max) {
        self.source = source
        self.maxTotalBytes = maxTotalBytes
    }

    /// Adds `item` (and its missing parent directories); `origin` says where it came from, for messages.
    mutating func add(_ item: ExpansionItem, from origin: String) throws(AssetPackError) {
        guard !item.path.isRoot else { return }
        try PlanBuilder.checkReserved(item.path, origin: origin, source: source)
        if lastPath.map({ !$0.hasSameParent(as: item.path) }) ?? true {  // byte-wise: a sibling's folders are in, checked
            try addFolders(of: item.path, origin: origin)
            lastPath = item.path
        }
        try insert(item, origin: origin, cause: item.path)
    }

    /// Adds the folders `path` lies in, from the top. A folder already in as a folder of the same bytes
    /// has all of its own folders in too, so when the nearest one is, nothing else is looked up.
    private mutating func addFolders(of path: AssetPath, origin: String) throws(AssetPackError) {
        let folder = path.parent
        if folder.isRoot { return }
        if case .found(let position) = names.find(folder, in: items), items[position].kind == .directory,
           items[position].path == folder { return }
        let text = path.string
        for index in text.utf8.indices where text.utf8[index] == AssetPath.slash {
            try insert(.directory(AssetPath(validated: String(text[..<index]))), origin: origin, cause: path)
        }
    }

    /// Makes room for `count` items at once, when the caller knows about how many there will be (an
    /// archive's entry count): no regrowth of the item list and the name table while they are added.
    mutating func reserve(_ count: Int) {
        items.reserveCapacity(count)
        originOfItem.reserveCapacity(count)
        names.reserve(count)
    }

    /// Hands over the items in path order (``PlanOrder``) as one window, leaving the builder empty.
    mutating func takeWindow() -> [ExpansionItem] {
        var result: [ExpansionItem] = []
        swap(&result, &items)
        names = FoldedNames()
        originOfItem = []
        impliedBy = [:]
        PlanOrder.sort(&result)
        return result
    }

    private mutating func insert(_ item: ExpansionItem, origin: String, cause: AssetPath) throws(AssetPackError) {
        switch names.find(item.path, in: items) {
        case .absent(let slot):
            try count(item, origin: origin)
            names.insert(slot, position: items.count)
            if cause != item.path { impliedBy[items.count] = cause }
            originOfItem.append(position(ofOrigin: origin))
            items.append(item)
        case .found(let previous):
            let earlier = items[previous]
            if earlier.path == item.path && earlier.kind == .directory && item.kind == .directory {
                // A folder entry after an entry below it: the folder that entry implied takes the bits it states.
                if cause == item.path, impliedBy.removeValue(forKey: previous) != nil { items[previous] = item }
                return
            }
            let first = Seen(path: earlier.path, kind: earlier.kind, origin: origins[Int(originOfItem[previous])],
                             cause: impliedBy[previous] ?? earlier.path)
            throw PlanBuilder.conflict(first, Seen(path: item.path, kind: item.kind, origin: origin, cause: cause), source: source)
        }
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
        totalBytes = try Self.adding(item, to: totalBytes, limit: maxTotalBytes, origin: origin, source: source)
    }

    /// `total` plus the size of `item` (from `origin`, of the source at `source`), refused past `limit`
    /// (``ExpansionOptions/maxTotalBytes``).
    static func adding(_ item: ExpansionItem, to total: UInt64, limit: UInt64, origin: String,
                       source: String) throws(AssetPackError) -> UInt64 {
        let (sum, overflow) = total.addingReportingOverflow(item.size)
        guard !overflow, sum <= limit else {
            let from = Self.from(origin, source: source).map { ", \($0)" } ?? ""
            throw AssetPackError(.limitExceeded, "\"\(item.path)\" (\(item.size) bytes\(from)) brings the expansion past its limit "
                                 + "of \(limit) bytes in all (ExpansionOptions.maxTotalBytes)", path: source, entry: item.path.string)
        }
        return sum
    }

    /// `from ORIGIN`, or nil when the origin is the source itself (which an error names as its path).
    static func from(_ origin: String, source: String) -> String? {
        origin == source ? nil : "from \(origin)"
    }

    private static func conflict(_ previous: Seen, _ item: Seen, source: String) -> AssetPackError {
        let first = previous.shown(source: source), second = item.shown(source: source)
        if (previous.kind == .symlink && item.kind == .directory) || (previous.kind == .directory && item.kind == .symlink) {
            // A folder of that name exists only because some entry lies below it: that entry would be written through the link.
            return AssetPackError(.symlink, "\(first) and \(second): one is a symbolic link and the other a folder, so entries "
                                  + "would be written through the link; nothing is written through a link",
                                  path: source, entry: item.path.string)
        }
        let reason: String
        // Swift's String equality is canonical equivalence, so compare the bytes.
        if previous.path != item.path {
            reason = "\(first) and \(second) differ only in case or Unicode normalization"
        } else if previous.kind != item.kind && (previous.kind == .directory || item.kind == .directory) {
            reason = "\(first) and \(second): the name is both a file and a directory"
        } else {
            reason = "the name appears twice: \(first) and \(second)"
        }
        return AssetPackError(.conflict, reason, path: source, entry: item.path.string)
    }

    /// The comparison key: each component in Unicode canonical composition (NFC), lowercased. An ASCII
    /// path is already NFC, so it skips Foundation's costly normalization.
    package static func foldedKey(_ path: AssetPath) -> String {
        if path.string.utf8.allSatisfy({ $0 < 0x80 }) { return path.string.lowercased() }
        return path.components.map { $0.precomposedStringWithCanonicalMapping.lowercased() }.joined(separator: "/")
    }

    /// The prefix of the temporary names the installer writes under (reserved anywhere in a plan).
    static let temporaryPrefix = ".assetpack-tmp-"

    /// The record folder at the top of a destination (``BundleManifest/installRecordDirectory``).
    static let recordDirectory = BundleManifest.installRecordDirectory

    /// Names beginning with ``recordDirectory`` at the top are assetpack's record; ``temporaryPrefix``
    /// anywhere is a temporary name the expander uses. `origin` and `source` are as in ``reservedName(_:origin:source:)``.
    package static func checkReserved(_ path: AssetPath, origin: String, source: String) throws(AssetPackError) {
        guard mayBeReserved(path) else { return }  // the usual case: no component starts with ".assetpack"
        let components = path.components
        let reservedTop = components.first?.hasPrefix(recordDirectory) == true
        let reservedAnywhere = components.contains { $0.hasPrefix(temporaryPrefix) }
        if reservedTop || reservedAnywhere { throw reservedName(path, origin: origin, source: source) }
    }

    /// The error for `path` (from `origin`: the source, or an archive or manifest in it) of the source at
    /// `source` (the error's path), whose name is reserved for assetpack's own files.
    static func reservedName(_ path: AssetPath, origin: String, source: String) -> AssetPackError {
        let from = Self.from(origin, source: source).map { " (\($0))" } ?? ""
        return AssetPackError(.conflict, "\"\(path)\"\(from): the name is reserved for assetpack's own files",
                              path: source, entry: path.string)
    }

    /// False when no component's bytes start with those of ``recordDirectory``, which both reserved
    /// prefixes start with; then neither `hasPrefix` test above (Character-wise) can hold either.
    private static func mayBeReserved(_ path: AssetPath) -> Bool {
        path.withUTF8 { bytes in
            recordDirectory.utf8.withContiguousStorageIfAvailable { prefix in
                var start = 0
                while start + prefix.count <= bytes.count {
                    if Memory.equal(bytes.baseAddress! + start, prefix.baseAddress!, count: prefix.count) { return true }
                    guard let slash = bytes[start...].firstIndex(of: AssetPath.slash) else { return false }
                    start = slash + 1
                }
                return false
            } ?? true
        }
    }
}
