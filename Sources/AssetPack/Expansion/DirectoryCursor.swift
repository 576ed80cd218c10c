/// Opens the folders of a tree one component at a time from its root descriptor, never following a
/// symlink, and keeps the chain it opened last: items come in path order, so siblings reuse it and a
/// deep tree costs one `openat` per new folder, with at most `depth` descriptors open.
final class DirectoryCursor {
    private let root: Descriptor
    private var names: [String] = []
    private var chain: [Descriptor] = []

    init(root: Descriptor) { self.root = root }

    /// The open folder at `path` (the root for ``AssetPath/root``). It must exist.
    func directory(_ path: AssetPath) throws(AssetPackError) -> Descriptor {
        let wanted = path.components
        var shared = 0
        while shared < min(wanted.count, names.count) && wanted[shared] == names[shared] { shared += 1 }
        names.removeSubrange(shared...)
        chain.removeSubrange(shared...)
        while names.count < wanted.count {
            let next = wanted[names.count]
            chain.append(try (chain.last ?? root).directory(next))
            names.append(next)
        }
        return chain.last ?? root
    }

    /// The folder at `path`, or nil when it (or a folder on the way) does not exist or is not a folder.
    func existingDirectory(_ path: AssetPath) -> Descriptor? {
        try? directory(path)
    }
}
