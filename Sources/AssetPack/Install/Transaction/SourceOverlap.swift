import AssetPackSystem

/// Refuses a destination that lies inside a folder source (the walk would find the tree being built),
/// and a folder source that lies inside the destination (the switch would remove it).
enum SourceOverlap {
    /// Throws ``AssetPackError/Code/invalidArgument`` when `source` is a folder that overlaps the
    /// destination `name` in the folder `parent`.
    static func check(_ source: any AssetSource, parent: String, name: String, destination: String) throws(AssetPackError) {
        guard let rootPath = source.storage.diskFolder, let root = FileSystem.canonicalPath(rootPath),
              let folder = FileSystem.canonicalPath(parent) else { return }
        let target = (folder == "/" ? "" : folder) + "/" + name
        if within(target, root) {
            throw AssetPackError(.invalidArgument, "the destination is inside the source folder \(rootPath)", path: destination)
        }
        if within(root, target) {
            throw AssetPackError(.invalidArgument, "the source folder \(rootPath) is inside the destination", path: destination)
        }
    }

    /// True when `path` is `folder` or below it.
    private static func within(_ path: String, _ folder: String) -> Bool {
        path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
    }
}
