/// Finds every file and directory of an ``AssetSource`` using only `list` and `open`, and tells them apart
/// exactly as an app must with Android's `AssetManager`:
///
/// - `list` returns children → a directory (walked in turn);
/// - `list` returns nothing and `open` succeeds → a file (the stream is dropped at once, never read);
/// - `list` returns nothing and `open` fails with `.notFound` → an empty directory;
/// - any other error propagates.
///
/// Every name `list` returns is checked with ``AssetPath/appending(_:)`` (an unsafe one fails the walk with
/// `.unsafePath`). A name listed twice (byte for byte) is reported once; names that differ only in Unicode
/// normalization or case are both reported.
///
/// The reserved folders at the root (`BundleManifest.isReservedName(_:)`) are skipped (deeper folders of
/// those names are ordinary assets); the expander walks them too, and refuses them.
///
/// Items come in ``AssetPath`` order (parents before their children, siblings by UTF-8 bytes), whatever
/// order the source lists them in.
///
/// - Complexity: one `list` per path plus one `open` per file or empty directory.
public struct AssetWalker: Sendable {
    /// The source walked.
    public let source: any AssetSource
    /// Whether the bookkeeping folders at the root are skipped (else they are walked like any folder).
    let skipsBookkeeping: Bool

    /// A walker over `source`.
    public init(_ source: any AssetSource) {
        self.init(source, skippingBookkeeping: true)
    }

    /// A walker over `source` that skips the bookkeeping folders at the root, or (`skippingBookkeeping`
    /// false) walks them like any folder.
    init(_ source: any AssetSource, skippingBookkeeping: Bool) {
        self.source = source
        self.skipsBookkeeping = skippingBookkeeping
    }

    /// Every file and directory of the source (the root itself excluded), sorted by path.
    /// - Throws: `.unsafePath` for a bad name, naming it and its folder; any error of the source.
    public func walk() throws(AssetPackError) -> [WalkedItem] {
        var items: [WalkedItem] = []
        try walk { (item) throws(AssetPackError) in items.append(item) }
        return items
    }

    /// Calls `visit` for every file and directory in sorted order, a directory before its contents.
    /// An error thrown by `visit` stops the walk and propagates.
    public func walk(_ visit: (WalkedItem) throws(AssetPackError) -> Void) throws(AssetPackError) {
        try descend(into: .root, names: try source.list(.root), visit: visit)
    }

    private func descend(into directory: AssetPath, names: [String],
                         visit: (WalkedItem) throws(AssetPackError) -> Void) throws(AssetPackError) {
        for child in try children(of: directory, names: names) {
            let grandchildren = try source.list(child)
            if grandchildren.isEmpty {
                try visit(WalkedItem(path: child, kind: try leafKind(child)))
            } else {
                try visit(WalkedItem(path: child, kind: .directory))
                try descend(into: child, names: grandchildren, visit: visit)
            }
        }
    }

    /// The checked, sorted paths of `names` inside `directory`, byte-identical repeats dropped.
    /// Repeats are found by UTF-8 bytes, not `String` equality: "café" composed and decomposed are two
    /// names on disk, and both must reach the caller (whose conflict check decides what to do).
    private func children(of directory: AssetPath, names: [String]) throws(AssetPackError) -> [AssetPath] {
        var seen: Set<[UInt8]> = []
        var paths: [AssetPath] = []
        for name in names where !(skipsBookkeeping && directory.isRoot && BundleManifest.isReservedName(name)) {
            guard seen.insert(Array(name.utf8)).inserted else { continue }
            do {
                paths.append(try directory.appending(name))
            } catch {
                throw error.inSource(source.name)
            }
        }
        return paths.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// A path with no children: a file when it opens, an empty directory when it is "not found".
    private func leafKind(_ path: AssetPath) throws(AssetPackError) -> WalkedItem.Kind {
        do {
            _ = try source.open(path)  // released here: the walker never reads the data
            return .file
        } catch where error.code == .notFound {
            return .directory
        }
    }
}

extension AssetPackError {
    /// This error with `path` set to `name` when it names no path yet.
    fileprivate func inSource(_ name: String) -> AssetPackError {
        var copy = self
        if copy.path == nil { copy.path = name }
        return copy
    }
}
