import Foundation
import AssetPackZip

/// Turns a source into an ``ExpansionPlan``: a source holding a manifest is planned from the manifest
/// alone; any other is walked with `list`/`open` (`TreePlanner`).
public enum ExpansionPlanner {
    /// Plans the expansion of `source`.
    /// - Throws: ``AssetPackError``: `.manifest` for a bad manifest, `.unsafePath` for a bad name,
    ///   `.conflict` for colliding names, `.symlink` for a refused link, `.archive` for a broken archive.
    public static func plan(_ source: any AssetSource, options: ExpansionOptions = ExpansionOptions()) throws(AssetPackError) -> ExpansionPlan {
        var whole: ExpansionPlan?
        if case .packedBundle(let base, let manifest) = source.storage {
            // The logical view hides how files are stored; plan from the bundle itself.
            let planner = ManifestPlanner<PlanBuilder>(source: ResolvedSource(base), options: options,
                                                       identity: manifest.identity) { whole = $0.plan }
            try planner.take(manifest.entries, expectedCount: manifest.entries.count)
            try planner.finish()
            return whole!
        }
        let resolved = ResolvedSource(source)
        let planner = ManifestPlanner<PlanBuilder>(source: resolved, options: options) { whole = $0.plan }
        if let located = try BundleManifest.locate(in: source, into: planner) {
            planner.identity = located.manifest.identity
            try planner.finish()
            return whole!
        }
        return try TreePlanner(source: resolved, options: options).plan()
    }

    /// The stamp of a packed bundle read from its small `assetpack-meta/identity` file alone, or nil when the
    /// source has none. This is all the up-to-date check reads from the bundle.
    static func quickStamp(_ source: any AssetSource) -> String? {
        if case .packedBundle(let base, _) = source.storage { return quickStamp(base) }
        guard let identity = try? BundleManifest.readIdentity(from: source) else { return nil }
        return identity
    }
}
