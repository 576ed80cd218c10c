/// Opens the folders of a tree one component at a time from its root, never following a symlink, and keeps
/// the chain it opened last, so items in path order cost one `openat` per new folder.
package final class DirectoryCursor {
    private let root: Descriptor
    private var names: [String] = []
    private var chain: [Descriptor] = []

    package init(root: Descriptor) { self.root = root }

    /// The open folder at `components` below the root (the root itself for none). It must exist.
    package func directory(_ components: [String]) throws(SystemError) -> Descriptor {
        for (depth, name) in components.enumerated() { try step(depth, name[...]) }
        truncate(to: components.count)
        return chain.last ?? root
    }

    /// The folder at `components`, or nil when it (or a folder on the way) does not exist or is not a folder.
    package func existingDirectory(_ components: [String]) -> Descriptor? {
        try? directory(components)
    }

    /// The open folder that holds the item at `path` (its components joined by `/`, as a checked asset
    /// path writes them; the root for a top-level item): the folder of the item's parent, without making
    /// the parent's path or an array of its components. Only a folder not open already costs a `String`.
    package func parent(ofPath path: String) throws(SystemError) -> Descriptor {
        let utf8 = path.utf8
        var depth = 0
        var start = utf8.startIndex
        while let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) {
            try step(depth, Substring(utf8[start..<end]))
            depth += 1
            start = utf8.index(after: end)
        }
        truncate(to: depth)
        return chain.last ?? root
    }

    /// ``parent(ofPath:)``, or nil when that folder (or one on the way) does not exist or is not a folder.
    package func existingParent(ofPath path: String) -> Descriptor? {
        try? parent(ofPath: path)
    }

    /// Makes `name` the open folder at `depth` of the chain: kept when it is already there (siblings of the
    /// last folder asked for cost no call), else opened below the folder at `depth - 1`, dropping the rest.
    private func step(_ depth: Int, _ name: Substring) throws(SystemError) {
        if depth < names.count, Memory.sameBytes(names[depth], name) { return }
        truncate(to: depth)
        let next = String(name)
        chain.append(try (chain.last ?? root).directory(next))
        names.append(next)
    }

    private func truncate(to depth: Int) {
        guard depth < names.count else { return }
        names.removeSubrange(depth...)
        chain.removeSubrange(depth...)
    }
}

/// Lookups that tell "not there" from "a link": for walking a tree whose links must be refused rather than
/// followed or skipped (a folder source). A name that is a symbolic link fails with
/// ``Errno/tooManySymbolicLinkLevels`` (`ELOOP`) on every platform: Linux reports `ENOTDIR` for a link
/// opened as a directory, so then the name is looked at to tell.
extension Descriptor {
    /// Opens the directory at `path` (the caller's own path); nil when it is missing or not a directory.
    package static func existingDirectory(atPath path: String) throws(SystemError) -> Descriptor? {
        let opened = FileDescriptor.opening(path, .directory)
        return try opened.value(orNilFor: .noSuchFileOrDirectory, .notDirectory).map { Descriptor($0, path: path) }
    }

    /// Opens the directory at `components` below this one, one component at a time; nil when one is missing
    /// or not a directory.
    package func existingDirectory(at components: [String]) throws(SystemError) -> Descriptor? {
        var current = self
        for name in components {
            guard let next = try current.openExisting(name, .directory) else { return nil }
            current = next
        }
        return current
    }

    /// `openat(2)` of `name` with `flags` (and `O_NOFOLLOW`); nil when it is missing or, with
    /// `.directory`, not a directory.
    package func openExisting(_ name: String, _ flags: FileDescriptor.OpenFlags = []) throws(SystemError) -> Descriptor? {
        switch open(name, flags, path: child(name)) {
        case .success(let opened):
            return opened
        case .failure(let error) where error.errno == .notDirectory && (try? status(name))??.kind == .symlink:
            throw SystemError(error.call, .tooManySymbolicLinkLevels, path: error.path)
        case .failure(let error) where error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory:
            return nil
        case .failure(let error):
            throw error
        }
    }
}
