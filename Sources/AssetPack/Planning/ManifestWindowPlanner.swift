/// Plans a bundle from its manifest a window at a time, as the manifest is read: the entries become items
/// (``ManifestItems``) collected by a ``PlanWindowBuilder``, and every ``windowSize`` items are handed on as
/// the plan of one window, so that the plan of a huge bundle is never whole in memory.
///
/// When the builder cannot decide an item (a name that may collide), it stops taking entries and says so
/// (``needsWholePlan``): the bundle must then be planned whole (``ManifestPlanner``).
final class ManifestWindowPlanner: ManifestEntrySink {
    private var items: ManifestItems
    private var builder: PlanWindowBuilder
    /// Items in a window (the last may have fewer).
    let windowSize: Int
    /// The identity the bundle states (in its identity file), which the windows' plans carry: the manifest's
    /// own is known to match it only once the manifest is read to its end.
    let identity: String
    private let handOver: (PlanWindow) throws(AssetPackError) -> Void
    /// The folders the next window's items go into that earlier windows made.
    private var openFolders: [AssetPath] = []
    /// True once the bundle must be planned whole (see the type's notes).
    private(set) var needsWholePlan = false

    /// A planner of the bundle `source` (stored, or delivered) whose identity file says `identity`, handing
    /// each window of `windowSize` items to `handOver`.
    init(source: ResolvedSource, options: ExpansionOptions, identity: String, windowSize: Int,
         handOver: @escaping (PlanWindow) throws(AssetPackError) -> Void) {
        items = ManifestItems(source: source, options: options)
        builder = PlanWindowBuilder(source: source.access.fileName, maxTotalBytes: options.maxTotalBytes)
        self.identity = identity
        self.windowSize = max(1, windowSize)
        self.handOver = handOver
    }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        guard !needsWholePlan else { return }
        for index in entries.indices {
            try builder.add(try items.item(for: entries[index]), from: BundleManifest.path)
            if builder.isUndecided {
                needsWholePlan = true
                return
            }
            if builder.items.count >= windowSize { try handOverWindow() }
        }
    }

    /// Hands on the last window, once every entry was taken.
    func finish() throws(AssetPackError) {
        if !needsWholePlan && !builder.items.isEmpty { try handOverWindow() }
    }

    private func handOverWindow() throws(AssetPackError) {
        let plan = ExpansionPlan(sourceName: items.source.name, items: builder.takeWindow(), identity: identity, usesManifest: true,
                                 stamp: identity, reading: items.source)
        let window = PlanWindow(plan: plan, openFolders: openFolders)
        openFolders = builder.openFolders
        try handOver(window)
    }
}
