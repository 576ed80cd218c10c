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
    }

    private var seen: [String: Seen] = [:]
    private(set) var items: [ExpansionItem] = []

    /// Adds `item` (and its missing parent directories); `origin` says where it came from, for messages.
    mutating func add(_ item: ExpansionItem, from origin: String) throws(AssetPackError) {
        guard !item.path.isRoot else { return }
        try PlanBuilder.checkReserved(item.path, origin: origin)
        var parent = AssetPath.root
        for component in item.path.components.dropLast() {
            parent = try parent.appending(component)
            try insert(.directory(parent), origin: origin)
        }
        try insert(item, origin: origin)
    }

    /// The items in path order.
    func sortedItems() -> [ExpansionItem] { items.sorted { $0.path < $1.path } }

    private mutating func insert(_ item: ExpansionItem, origin: String) throws(AssetPackError) {
        let key = PlanBuilder.foldedKey(item.path)
        guard let previous = seen[key] else {
            seen[key] = Seen(path: item.path, kind: item.kind, origin: origin)
            items.append(item)
            return
        }
        let sameBytes = previous.path.string.utf8.elementsEqual(item.path.string.utf8)
        if sameBytes && previous.kind == .directory && item.kind == .directory { return }
        throw PlanBuilder.conflict(previous, item, origin: origin)
    }

    private static func conflict(_ previous: Seen, _ item: ExpansionItem, origin: String) -> AssetPackError {
        let first = "\"\(previous.path)\" (from \(previous.origin))"
        let second = "\"\(item.path)\" (from \(origin))"
        let reason: String
        // Swift's String equality is canonical equivalence, so compare the bytes.
        if !previous.path.string.utf8.elementsEqual(item.path.string.utf8) {
            reason = "\(first) and \(second) differ only in case or Unicode normalization"
        } else if previous.kind != item.kind && (previous.kind == .directory || item.kind == .directory) {
            reason = "\(first) is both a file and a directory"
        } else {
            reason = "the name appears twice: \(first) and \(second)"
        }
        return AssetPackError(.conflict, reason, path: item.path.string)
    }

    /// The comparison key: each component in Unicode canonical composition (NFC), lowercased.
    static func foldedKey(_ path: AssetPath) -> String {
        path.components.map { $0.precomposedStringWithCanonicalMapping.lowercased() }.joined(separator: "/")
    }

    /// Names beginning with `.assetpack` at the top are assetpack's record; `.assetpack-tmp` anywhere is a
    /// temporary name the expander uses.
    static func checkReserved(_ path: AssetPath, origin: String) throws(AssetPackError) {
        let reservedTop = path.components.first?.hasPrefix(BundleManifest.reservedDirectory) == true
        let reservedAnywhere = path.components.contains { $0.hasPrefix(StagingNames.temporaryPrefix) }
        if reservedTop || reservedAnywhere {
            throw AssetPackError(.conflict, "the name is reserved for assetpack's own files (from \(origin))", path: path.string)
        }
    }
}
