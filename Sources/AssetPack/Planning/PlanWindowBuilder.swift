import AssetPackSystem

/// Collects a plan's items from entries that come folder by folder — every path below a folder in one
/// run, as in path order or in the order `zip -r` walks a tree — and hands them over a window at a time
/// (``takeWindow()``). It refuses what ``PlanBuilder`` refuses, and adds missing folders the same way.
///
/// For collisions it keeps only what a later item can still collide with: the folders that hold the last
/// item, each with the folded forms (``PlanBuilder/foldedKey(_:)``) of its children so far, as hashes. That
/// is enough because each folder's paths come in one run: two paths that fold alike first differ in a pair
/// of children of one folder, which were both added while that folder was open. A folder that comes back
/// after it was left is its parent's child a second time, and so is caught as a collision — unless nothing
/// was added to it the first time (a folder's entry stated before its contents, as `bsdtar` writes them):
/// then it is entered again, once, and all its children still come while it is open.
///
/// It never words a collision: a folder met again, or a name whose folded hash a sibling already has,
/// makes ``isUndecided`` true and every later item is ignored; the caller then plans the tree whole with
/// ``PlanBuilder``, which decides and words it.
struct PlanWindowBuilder {
    /// A folder that holds the last item, the hashes of the folded names of its children so far, and the
    /// names of its child folders that were left before anything was added to them.
    private struct OpenFolder {
        let path: AssetPath
        var children: Set<Int> = []
        /// By their exact bytes: `String` equality would take a decomposed name for its composed twin.
        var unvisited: Set<[UInt8]> = []
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
        while chain.count > 1, !Self.path(chain[chain.count - 1].path, holds: item.path) { leaveFolder() }
        // The folders between the deepest open one and the item, from the top.
        let deepest = chain[chain.count - 1].path.string.utf8.count
        let text = item.path.string
        var offset = 0
        for index in text.utf8.indices {
            defer { offset += 1 }
            guard offset > deepest, text.utf8[index] == AssetPath.slash else { continue }
            guard insert(.directory(AssetPath(validated: String(text[..<index]))), implied: true) else { return }
        }
        guard insert(item, implied: false) else { return }
        totalBytes = try PlanBuilder.adding(item, to: totalBytes, limit: maxTotalBytes, origin: origin, source: source)
    }

    /// Hands over the items added since the last call.
    mutating func takeWindow() -> [ExpansionItem] {
        var window: [ExpansionItem] = []
        swap(&window, &items)
        return window
    }

    /// Closes the deepest open folder. One that holds nothing yet may be entered once more, later (see
    /// ``insert(_:implied:)``).
    private mutating func leaveFolder() {
        let left = chain.removeLast()
        if left.children.isEmpty { chain[chain.count - 1].unvisited.insert(Array(left.path.name.utf8)) }
    }

    /// Adds `item` as a child of the deepest open folder (opening it when it is a folder; `implied`: a
    /// folder of a later item's path); false, and undecided, when a sibling's name folds to the same hash. A
    /// folder stated earlier and left empty is entered again instead (`bsdtar` states a folder's subfolders
    /// before it fills each one).
    private mutating func insert(_ item: ExpansionItem, implied: Bool) -> Bool {
        if item.kind == .directory, chain[chain.count - 1].unvisited.remove(Array(item.path.name.utf8)) != nil {
            if !implied { return reject() }  // stated twice: the whole plan decides
            chain.append(OpenFolder(path: item.path))
            return true
        }
        var hasher = Hasher()
        FoldedNames.foldName(item.path.name) { hasher.combine(bytes: $0) }
        guard chain[chain.count - 1].children.insert(hasher.finalize()).inserted else { return reject() }
        items.append(item)
        if item.kind == .directory { chain.append(OpenFolder(path: item.path)) }
        return true
    }

    /// Makes the builder undecided; false.
    private mutating func reject() -> Bool {
        isUndecided = true
        return false
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
