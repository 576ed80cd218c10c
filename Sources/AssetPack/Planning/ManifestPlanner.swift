/// Plans a packed bundle from its manifest: every logical directory and file, each file read either
/// from a plain file of the bundle or from its entry in the archive the manifest names (``ManifestItems``).
/// No walk.
///
/// It takes the manifest's entries a run at a time as they are read (a ``ManifestEntrySink``), so that a
/// bundle's manifest is planned without its entry list ever being held whole: for 1,000,000 files that list
/// takes about 300 MB, more than the plan.
final class ManifestPlanner: ManifestEntrySink {
    private var items: ManifestItems
    private var builder: PlanBuilder

    /// A planner of the bundle `source` (stored, or delivered).
    init(source: ResolvedSource, options: ExpansionOptions) {
        items = ManifestItems(source: source, options: options)
        builder = PlanBuilder(source: source.access.fileName, maxTotalBytes: options.maxTotalBytes)
    }

    /// The plan of `manifest`, whose entries are in hand.
    static func plan(_ manifest: BundleManifest, source: ResolvedSource,
                     options: ExpansionOptions) throws(AssetPackError) -> ExpansionPlan {
        let planner = ManifestPlanner(source: source, options: options)
        try planner.take(manifest.entries, expectedCount: manifest.entries.count)
        return planner.plan(identity: manifest.identity)
    }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        if let expectedCount, builder.items.isEmpty { builder.reserve(expectedCount) }
        // One origin for every entry: a conflict message names the paths itself, and a text per entry
        // would cost a string (and a slot in the builder's table of origins) per file.
        // By index, each entry read in place: a copy of each would retain and release its strings.
        for index in entries.indices {
            try builder.add(try items.item(for: entries[index]), from: BundleManifest.path)
        }
    }

    /// The plan of the entries taken, for a manifest whose identity is `identity`.
    func plan(identity: String) -> ExpansionPlan {
        ExpansionPlan(sourceName: items.source.name, items: builder.takeSortedItems(), identity: identity,
                      usesManifest: true, stamp: identity, reading: items.source)
    }
}
