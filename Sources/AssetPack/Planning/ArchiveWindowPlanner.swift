import AssetPackZip

/// Plans an archive given as the source (`assetpack expand huge.zip`) a window at a time, as its central
/// directory is read (``ZipArchive/entries(from:)``): each entry becomes an item (``ArchiveEntryPlanner``),
/// the items go through a ``PlanWindowBuilder``, and every ``windowSize`` items are one window. The tree's
/// identity (``TreeIdentity``, independent of order) is summed as the windows go.
///
/// Archives come in their writer's order (`zip -r` and `jar` follow the file system's listing), which is
/// fine while each folder's entries come in one run. What cannot be decided here (a folder that comes
/// back, names that may collide, a `.zip` to unzip, a bookkeeping folder at the top) makes
/// ``run(handOver:)`` return nil: the archive needs a whole plan, which decides and words it.
struct ArchiveWindowPlanner {
    let source: ResolvedSource
    let options: ExpansionOptions
    /// Items in a window (the last may have fewer).
    let windowSize: Int

    /// Plans the archive, handing each window to `handOver`; returns the tree's identity, or nil when the
    /// archive needs a whole plan (nothing is handed on after that).
    /// - Throws: what planning the archive whole would throw for a bad entry, naming the archive and the entry.
    func run(handOver: (PlanWindow) throws(AssetPackError) -> Void) throws(AssetPackError) -> String? {
        guard let (handle, rootFolder) = source.archive else { return nil }
        let archive = try handle.archive()
        var rules = ArchiveEntryPlanner.Rules.source(root: rootFolder, options: options)
        rules.refusesBookkeeping = false  // such a folder makes the archive need a whole plan, which words it
        let root = ArchiveEntryPlanner.components(of: rootFolder)
        let entries = ArchiveEntryPlanner(source: source.access, options: options)
        var builder = PlanWindowBuilder(source: source.access.fileName, maxTotalBytes: options.maxTotalBytes)
        var identity = TreeIdentity()
        var openFolders: [AssetPath] = []
        var scanner = archive.entries()
        while let entry = try next(&scanner, archive: handle.location) {
            switch try entries.planned(entry, of: handle, archive: archive, rules: rules, root: root, carriesEntry: true) {
            case .skipped: continue
            case .nestedArchive: return nil
            case .item(let item):
                if BundleManifest.isReservedName(item.path.firstComponent) { return nil }
                try builder.add(item, from: handle.displayName)
                if builder.isUndecided { return nil }
            }
            if builder.items.count >= max(1, windowSize) {
                try handOver(window(&builder, identity: &identity, openFolders: &openFolders))
            }
        }
        if !builder.items.isEmpty { try handOver(window(&builder, identity: &identity, openFolders: &openFolders)) }
        return identity.finalize()
    }

    /// The items added since the last window, as the next window; their lines are added to `identity`.
    private func window(_ builder: inout PlanWindowBuilder, identity: inout TreeIdentity,
                        openFolders: inout [AssetPath]) -> PlanWindow {
        let items = builder.takeWindow()
        for position in items.indices { identity.add(items[position]) }
        let plan = ExpansionPlan(sourceName: source.name, items: items, identity: "", usesManifest: false, stamp: "", reading: source)
        defer { openFolders = builder.openFolders }
        return PlanWindow(plan: plan, openFolders: openFolders)
    }

    /// The next entry of the central directory.
    private func next(_ scanner: inout ZipEntryScanner, archive: ErrorLocation) throws(AssetPackError) -> ZipEntry? {
        do { return try scanner.next() } catch { throw archive.error(error) }
    }
}
