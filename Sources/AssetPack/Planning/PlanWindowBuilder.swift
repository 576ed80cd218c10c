import AssetPackSystem

/// Collects a plan's items from entries that come folder by folder — every path below a folder in one
/// run, as in path order (``AssetPath/<(_:_:)``, the order the packer writes a manifest in) or in the
/// order `zip -r` walks a tree — and hands them over a window at a time (``takeWindow()``), so that a huge
/// tree is expanded without its whole plan in memory. It refuses the reserved names and the total size
/// that ``PlanBuilder`` refuses, and adds each item's missing folders the same way.
///
/// For collisions it keeps only what a later item can still collide with: the folders that hold the last
/// item, each with the folded forms (``PlanBuilder/foldedKey(_:)``) of its children so far, as hashes. That
/// is enough because each folder's paths come in one run: two paths that fold alike first differ in a pair
/// of children of one folder, which were both added while that folder was open. A folder that comes back
/// after it was left is its parent's child a second time, and so is caught as a collision.
///
/// It never words a collision. A folder met again, or a name whose folded hash a sibling already has (a
/// collision, a name stored twice, or very rarely two names with one hash), makes ``isUndecided`` true and
/// every later item is ignored: the caller then plans the tree whole with ``PlanBuilder``, which decides
/// and words it.
struct PlanWindowBuilder {
    /// A folder that holds the last item, and the hashes of the folded names of its children so far.
    private struct OpenFolder {
        let path: AssetPath
        var children: Set<Int> = []
    }

    /// The root, then each folder down to the last item's (or the last item itself, when a folder).
    private var chain = [OpenFolder(path: .root)]
    /// The items since the last window was taken.
    private(set) var items: [ExpansionItem] = []
    /// Bytes of all files added so far, in every window.
    private(set) var totalBytes: UInt64 = 0
    /// The most bytes the files may add up to (``ExpansionOptions/maxTotalBytes``).
    let maxTotalBytes: UInt64
    /// The file or folder on disk the plan's source reads: the path of every error about an item
    /// (``PlanBuilder/source``).
    let source: String
    /// True once an item could not be decided here (see the type's notes).
    private(set) var isUndecided = false

    /// An empty plan of the source at `source` whose files may add up to at most `maxTotalBytes`.
    init(source: String, maxTotalBytes: UInt64 = .max) {
        self.source = source
        self.maxTotalBytes = maxTotalBytes
    }

    /// The folders below the root that hold the last item added: the folders made by earlier windows
    /// that the next window's items go into.
    var openFolders: [AssetPath] { chain.dropFirst().map(\.path) }

    /// Adds `item` (and its missing folders); `origin` says where it came from, for messages.
    mutating func add(_ item: ExpansionItem, from origin: String) throws(AssetPackError) {
        guard !isUndecided, !item.path.isRoot else { return }
        try PlanBuilder.checkReserved(item.path, origin: origin, source: source)
        while chain.count > 1, !Self.path(chain[chain.count - 1].path, holds: item.path) { chain.removeLast() }
        // The folders between the deepest open one and the item, from the top.
        let deepest = chain[chain.count - 1].path.string.utf8.count
        let text = item.path.string
        var offset = 0
        for index in text.utf8.indices {
            defer { offset += 1 }
            guard offset > deepest, text.utf8[index] == AssetPath.slash else { continue }
            guard insert(.directory(AssetPath(validated: String(text[..<index])))) else { return }
        }
        guard insert(item) else { return }
        totalBytes = try PlanBuilder.adding(item, to: totalBytes, limit: maxTotalBytes, origin: origin, source: source)
    }

    /// Hands over the items added since the last call.
    mutating func takeWindow() -> [ExpansionItem] {
        var window: [ExpansionItem] = []
        swap(&window, &items)
        return window
    }

    /// Adds `item` as a child of the deepest open folder (opening it when it is a folder); false, and
    /// undecided, when a sibling's name folds to the same hash.
    private mutating func insert(_ item: ExpansionItem) -> Bool {
        var hasher = Hasher()
        FoldedNames.foldName(item.path.name) { hasher.combine(bytes: $0) }
        guard chain[chain.count - 1].children.insert(hasher.finalize()).inserted else {
            isUndecided = true
            return false
        }
        items.append(item)
        if item.kind == .directory { chain.append(OpenFolder(path: item.path)) }
        return true
    }

    /// True when `path` lies below `folder` (every path lies below the root).
    private static func path(_ folder: AssetPath, holds path: AssetPath) -> Bool {
        folder.isRoot || folder.withUTF8 { outer in
            path.withUTF8 { inner in
                inner.count > outer.count && inner[outer.count] == AssetPath.slash
                    && Memory.equal(inner.baseAddress!, outer.baseAddress!, count: outer.count)
            }
        }
    }
}
