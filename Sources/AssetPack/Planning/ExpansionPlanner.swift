import Foundation
import AssetPackZip

/// Turns a source into an ``ExpansionPlan``. A source holding `.assetpack/manifest.json` (a packed bundle)
/// is planned from the manifest alone, without a walk; any other source is walked with `list`/`open` and
/// each `.zip` file found is planned as unzipped into its parent folder (unless
/// ``ExpansionOptions/keepZips``). A ``PackedBundleSource`` view is planned from the bundle under it.
public enum ExpansionPlanner {
    /// Plans the expansion of `source`.
    /// - Throws: ``AssetPackError``: `.manifest` for a bad manifest, `.unsafePath` for a bad name,
    ///   `.conflict` for colliding names, `.symlink` for a refused link, `.archive` for a broken archive.
    public static func plan(_ source: any AssetSource, options: ExpansionOptions = ExpansionOptions()) throws(AssetPackError) -> ExpansionPlan {
        if let view = source as? PackedBundleSource {
            // The logical view hides how files are stored; plan from the bundle itself.
            return try ManifestPlanner(source: view.base, manifest: view.manifest, options: options).plan()
        }
        if let manifest = try readManifest(source) {
            return try ManifestPlanner(source: source, manifest: manifest, options: options).plan()
        }
        return try TreePlanner(source: source, options: options).plan()
    }

    /// The stamp of a packed bundle read from its small `.assetpack/identity` file alone, or nil when the
    /// source has none. This is all the up-to-date check reads from the bundle.
    static func quickStamp(_ source: any AssetSource) -> String? {
        if let view = source as? PackedBundleSource { return quickStamp(view.base) }
        guard let bytes = try? readSmall(source, identityPath, limit: 4096) else { return nil }
        return ExpansionPlan.manifestStamp(trimmed(bytes))
    }

    /// The parsed manifest, or nil when the source has none.
    static func readManifest(_ source: any AssetSource) throws(AssetPackError) -> BundleManifest? {
        guard let bytes = try readSmall(source, manifestPath, limit: 256 << 20) else { return nil }
        let origin = source.name + "/" + BundleManifest.path
        let manifest = try BundleManifest.decode(bytes, origin: origin)
        guard ContentIdentity.of(manifest.entries) == manifest.identity else {
            throw AssetPackError(.manifest, "the manifest's identity does not match its entries", path: origin)
        }
        if let identity = try readSmall(source, identityPath, limit: 4096), trimmed(identity) != manifest.identity {
            throw AssetPackError(.manifest, "\(BundleManifest.identityPath) disagrees with the manifest's identity", path: origin)
        }
        return manifest
    }

    /// A small file of the source, or nil when it does not exist.
    private static func readSmall(_ source: any AssetSource, _ path: AssetPath, limit: Int) throws(AssetPackError) -> [UInt8]? {
        let stream: any ByteStream
        do {
            stream = try source.open(path)
        } catch where error.code == .notFound {
            return nil
        }
        do {
            return try stream.readAll(limit: limit)
        } catch {
            throw AssetPackError(error.inArchive(source.name + "/" + path.string))
        }
    }

    private static func trimmed(_ bytes: [UInt8]) -> String { SmallFiles.text(bytes) }

    private static let manifestPath = try! AssetPath(BundleManifest.path)
    private static let identityPath = try! AssetPath(BundleManifest.identityPath)
}
