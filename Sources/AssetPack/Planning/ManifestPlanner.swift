/// Plans a bundle from its manifest as the manifest is read (a ``ManifestEntrySink``): each entry becomes an
/// item (``ManifestItems``), collected by `Collector`, and every ``windowSize`` items are handed on as the
/// plan of one window. With a ``PlanBuilder`` and a window of `.max` items it hands on the whole plan, every
/// collision decided, as one window. When a ``PlanWindowBuilder`` cannot decide an item (a name that may
/// collide), the planner stops and says so (``needsWholePlan``): the bundle must then be planned whole.
final class ManifestPlanner<Collector: PlanCollector>: ManifestEntrySink {
    private var items: ManifestItems
    private var builder: Collector
    /// Items in a window (the last may have fewer).
    let windowSize: Int
    /// The identity the windows' plans carry: the bundle's identity file's, or set from the manifest once read
    /// (the manifest's own is known to match the identity file only once it is read to its end).
    var identity: String
    private let handOver: (PlanWindow) throws(AssetPackError) -> Void
    /// The folders the next window's items go into that earlier windows made.
    private var openFolders: [AssetPath] = []
    /// True once a window was handed on.
    private var handedOn = false
    /// True once the bundle must be planned whole (see the type's notes).
    private(set) var needsWholePlan = false

    /// A planner of the bundle `source` (stored, or delivered) whose identity is `identity` (as far as known),
    /// handing each window of `windowSize` items to `handOver`.
    init(source: ResolvedSource, options: ExpansionOptions, identity: String = "", windowSize: Int = .max,
         handOver: @escaping (PlanWindow) throws(AssetPackError) -> Void) {
        items = ManifestItems(source: source, options: options)
        builder = Collector(source: source.access.fileName, maxTotalBytes: options.maxTotalBytes)
        self.identity = identity
        self.windowSize = max(1, windowSize)
        self.handOver = handOver
    }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        guard !needsWholePlan else { return }
        if let expectedCount, !handedOn, builder.items.isEmpty { builder.reserve(min(expectedCount, windowSize)) }
        // One origin for every entry: a conflict message names the paths itself. By index, each entry read in
        // place: a copy of each would retain and release its strings.
        for index in entries.indices {
            try builder.add(try items.item(for: entries[index]), from: BundleManifest.path)
            if builder.isUndecided {
                needsWholePlan = true
                return
            }
            if builder.items.count >= windowSize { try handOverWindow() }
        }
    }

    /// Hands on the last window (the only one, of a bundle planned whole, even when empty) once every entry was taken.
    func finish() throws(AssetPackError) {
        if !needsWholePlan && (!builder.items.isEmpty || !handedOn) { try handOverWindow() }
    }

    private func handOverWindow() throws(AssetPackError) {
        let plan = ExpansionPlan(sourceName: items.source.name, items: builder.takeWindow(), identity: identity, usesManifest: true,
                                 stamp: identity, reading: items.source)
        let window = PlanWindow(plan: plan, openFolders: openFolders)
        openFolders = builder.openFolders
        handedOn = true
        try handOver(window)
    }
}

/// Collects a plan's items for a planner and hands them over a window at a time: ``PlanWindowBuilder`` as they
/// come, folder by folder; ``PlanBuilder`` all of them at once, in path order, every collision decided.
protocol PlanCollector {
    /// An empty plan of the source at `source` whose files may add up to at most `maxTotalBytes`.
    init(source: String, maxTotalBytes: UInt64)
    /// Adds `item` (and its missing folders); `origin` says where it came from, for messages.
    mutating func add(_ item: ExpansionItem, from origin: String) throws(AssetPackError)
    /// The items added since the last window.
    var items: [ExpansionItem] { get }
    /// True once an item could not be decided here: the source needs a whole plan.
    var isUndecided: Bool { get }
    /// The folders below the root that hold the last item added (the next window's items go into them).
    var openFolders: [AssetPath] { get }
    /// Hands over the items added since the last window.
    mutating func takeWindow() -> [ExpansionItem]
    /// Makes room for `count` items, when about as many will come.
    mutating func reserve(_ count: Int)
}

extension PlanCollector {
    mutating func reserve(_ count: Int) {}
}

extension PlanBuilder: PlanCollector {
    var isUndecided: Bool { false }
    var openFolders: [AssetPath] { [] }
}

extension PlanWindowBuilder: PlanCollector {}
