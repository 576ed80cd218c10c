import AssetPackSystem
import AssetPackZip

/// The checks that keep a wrong source (`assetpack expand app.apk --root asets`, a typo) from "succeeding"
/// with nothing, or with less than it holds:
/// - the folder a source starts at must exist and be a folder: the root of an archive (``AssetStorage/archive(_:root:)``)
///   and the folder of a folder source (``AssetStorage/folder(root:)``) — checked before planning;
/// - a tree without a single file is refused unless the caller allows it (``ExpansionOptions/allowsEmpty``);
/// - a tree planned without a manifest holds no bookkeeping folder at its top (``notBookkeeping(_:source:)``).
///
/// The first two are ``AssetPackError/Code/notFound`` naming the archive or folder and the root. Sources that offer
/// only `list`/`open` cannot tell a missing folder from an empty one (Android's rule), so for them the
/// second check is the one that speaks.
enum SourceCheck {
    /// Refuses a source whose starting folder is missing or is not a folder.
    static func root(of storage: AssetStorage) throws(AssetPackError) {
        switch storage {
        case .archive(let archive, let root) where !root.isEmpty && !archive.isDirectory(root):
            if archive.entry(named: root) != nil {
                throw AssetPackError(.notFound, "the root \(AssetPath.quoted(root)) is a file in the archive, not a folder",
                                     path: archive.name)
            }
            throw AssetPackError(.notFound, "the archive has no folder \(AssetPath.quoted(root)) (the root to expand)",
                                 path: archive.name)
        case .folder(let root):
            guard let status = try io(FileSystem.status(root, followingLinks: true)) else {
                throw AssetPackError(.notFound, "no such folder", path: root)
            }
            if status.kind != .directory {
                throw AssetPackError(.notFound, "is a file, not a folder", path: root)
            }
        default:
            return
        }
    }

    /// Refuses `path` of a tree planned without a manifest when it lies in a bookkeeping folder at the top
    /// (`BundleManifest.isReservedName(_:)`: `assetpack-meta`, an install's `.assetpack`), as a nested
    /// archive's entry there is refused: without a manifest the folder is no bundle's, and skipping it would
    /// drop its files without a word.
    /// - Throws: `.conflict` naming `source` (the archive or folder on disk) and `path`.
    static func notBookkeeping(_ path: AssetPath, source: String) throws(AssetPackError) {
        guard BundleManifest.isReservedName(path.firstComponent) else { return }
        throw PlanBuilder.reservedName(path, origin: source, source: source)
    }

    /// Refuses a plan without a file (only folders, or nothing) unless `options` allow it.
    static func notEmpty(_ plan: ExpansionPlan, options: ExpansionOptions) throws(AssetPackError) {
        guard plan.fileCount == 0, !options.allowsEmpty else { return }
        throw AssetPackError(.notFound, "holds no files, so there is nothing to expand (check the path and the root "
                             + "folder given; to expand an empty tree, allow it: --allow-empty)", path: plan.sourceName)
    }
}
