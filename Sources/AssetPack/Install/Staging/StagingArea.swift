import AssetPackSystem
import Foundation

/// The hidden sibling `.<name>.assetpack-staging` where the next version of a destination is built, on
/// the same file system so that it can be switched in with one rename. Its `.assetpack/staging` marker
/// says what is being built (`InstallPlanning.marker`), so a later call can tell what it finds there:
/// - the wanted marker, or the wanted stamp (completed but never switched in): resumed, every file checked
///   against the plan again (``ResumeCheck``);
/// - anything else (another bundle, a previous tree left after a switch): removed and started afresh.
enum StagingArea {
    /// What was found.
    enum State { case fresh, resumable }

    /// Opens (creating when needed) the staging tree `name` in `parent` for a tree marked `marker` whose
    /// stamp is `stamp` (nil when not known yet); `discarded` is called with the path of a staging tree that
    /// is removed because it holds something else.
    static func prepare(_ name: String, in parent: Descriptor, stamp: String?, marker wanted: String,
                        discarded: (String) -> Void = { _ in }) throws(AssetPackError) -> (Descriptor, State) {
        if let tree = try resumable(name, in: parent, stamp: stamp, marker: wanted) {
            if marker(of: tree) != wanted { try mark(tree, wanted) }
            return (tree, .resumable)
        }
        if try io(parent.status(name)) != nil { try discard(name, in: parent, discarded: discarded) }
        let tree: Descriptor
        do {
            tree = try parent.directory(name, creatingWith: PermissionPolicy.defaultDirectory)
        } catch {
            // The first write beside the destination: name the folder the caller chose, not the hidden name.
            var failure = error
            failure.path = parent.path
            throw AssetPackError(failure)
        }
        try io(tree.fd.setPermissions(PermissionPolicy.defaultDirectory, path: tree.path))
        try mark(tree, wanted)
        return (tree, .fresh)
    }

    /// The staging tree `name` of `parent` when a call building the tree marked `wanted` (stamp `stamp`, when known)
    /// resumes it: it has that marker, or that stamp (complete, never switched in); nil otherwise. Writes nothing.
    static func resumable(_ name: String, in parent: Descriptor, stamp: String?,
                          marker wanted: String) throws(AssetPackError) -> Descriptor? {
        guard try io(parent.status(name))?.kind == .directory else { return nil }
        let tree = try io(parent.directory(name))
        if marker(of: tree) == wanted { return tree }
        if let stamp, InstallRecord.stamp(of: tree) == stamp { return tree }
        return nil
    }

    /// Writes `marker` into the staging tree's record folder (made when missing). Never flushed: a marker lost
    /// to a power loss only makes the next call start the tree afresh.
    private static func mark(_ tree: Descriptor, _ marker: String) throws(AssetPackError) {
        let record = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        try SmallFiles.write(Array((marker + "\n").utf8), to: StagingNames.stagingMarkerFile, in: record, durable: false)
    }

    /// Removes the staging tree `name` of `parent` and calls `discarded` with its path.
    static func discard(_ name: String, in parent: Descriptor, discarded: (String) -> Void) throws(AssetPackError) {
        try io(TreeRemoval.remove(name, in: parent))
        discarded(parent.path == "/" ? "/" + name : parent.path + "/" + name)
    }

    /// Removes the staging marker once the tree is complete (so it does not end up in the destination).
    static func removeMarker(from tree: Descriptor) throws(AssetPackError) {
        guard let record = try? tree.directory(StagingNames.recordDirectory) else { return }
        try io(record.remove(StagingNames.stagingMarkerFile))
    }

    /// The marker of the staging tree `tree`, or nil when it has none.
    static func marker(of tree: Descriptor) -> String? {
        guard let record = try? tree.directory(StagingNames.recordDirectory),
              let bytes = try? SmallFiles.read(StagingNames.stagingMarkerFile, in: record, limit: 4096) else { return nil }
        return InstallRecord.text(bytes)
    }
}
