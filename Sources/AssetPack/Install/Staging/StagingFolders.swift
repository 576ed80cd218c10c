import AssetPackSystem

/// Creates a plan's folders in the staging tree, in plan order, as far as the files being written need
/// them: the workers call ``make(before:)`` for the position of each batch they take, so the folders are
/// made by whichever worker first needs them, not all on one thread before the first file. ``makeAll()``
/// makes the rest (empty folders, and all of them before files are linked or links are made).
///
/// A new folder whose bits the umask leaves alone costs one `mkdirat`; an existing one (a resumed tree) or
/// one the umask would change is opened (never through a link) and given its bits with `fchmod`.
final class StagingFolders: @unchecked Sendable {
    private let items: [ExpansionItem]
    /// The positions of the plan's folders, in plan order.
    private let positions: [Int]
    private let lock = Monitor()
    /// Guarded by ``lock``: how many of ``positions`` are made, and the cursor they are made with.
    private var made = 0
    private let cursor: DirectoryCursor
    private let mask = FileSystem.creationMask()

    /// The folders of `plan`, to be made in `staging`; `only`, when given: those above the items at these
    /// positions, no other (an upgrade in place stages only what changed).
    init(_ plan: ExpansionPlan, in staging: Descriptor, only: [Int]? = nil) {
        items = plan.items
        let above = only.map { Self.folders(above: $0, in: plan.items) }
        positions = plan.items.indices.filter { position in
            plan.items[position].kind == .directory && above.map { $0.contains(plan.items[position].path.string) } != false
        }
        cursor = DirectoryCursor(root: staging)
    }

    /// Makes every folder that comes before plan position `position` (so every folder above that item) and is
    /// not made yet. Items come in path order, a folder before what it holds (``PlanOrder``).
    func make(before position: Int) throws(AssetPackError) {
        try lock.withLock { () throws(AssetPackError) in
            while made < positions.count, positions[made] < position {
                try makeFolder(items[positions[made]])
                made += 1
            }
        }
    }

    /// Makes every folder not made yet.
    func makeAll() throws(AssetPackError) {
        try make(before: Int.max)
    }

    /// The paths of the folders above the items at `positions`.
    private static func folders(above positions: [Int], in items: [ExpansionItem]) -> Set<String> {
        var paths: Set<String> = []
        for position in positions {
            var path = items[position].path.parent
            while !path.isRoot, paths.insert(path.string).inserted { path = path.parent }
        }
        return paths
    }

    private func makeFolder(_ item: ExpansionItem) throws(AssetPackError) {
        let parent = try io(cursor.parent(ofPath: item.path.string))
        let created = try io(parent.makeDirectory(item.path.name, mode: item.permissions))
        if created, let mask, item.permissions & mask == 0 { return }
        let folder = try io(parent.directory(item.path.name))
        try io(folder.fd.setPermissions(item.permissions, path: folder.path))
    }
}
