import AssetPackSystem

/// Checks that a symlink created in a tree resolves inside the tree, on the real file system: the target
/// is followed one component at a time from the tree's root descriptor, links met on the way are read
/// and followed the same way (at most 40 of them), and a `..` that would climb above the root is an
/// escape. The check runs after every link of the tree exists, so a link cannot be judged before the
/// links it passes through are there. From a missing name on, the rest of the target is followed as text
/// (a missing name is no link): a dangling link is accepted only when it would stay inside the tree once
/// the missing names exist (`missing/../x` is fine, `missing/../../x` is an escape). A link loop is
/// refused (more than 40 links followed).
struct SymlinkContainment {
    let root: Descriptor
    private static let maxHops = 40

    /// Throws ``AssetPackError/Code/symlink`` when the link at `path` escapes the tree or loops; the
    /// message names the link and its target.
    func check(_ path: AssetPath) throws(AssetPackError) {
        let parent = try io(DirectoryCursor(root: root).directory(path.parent.components))
        let target = try io(parent.readSymlink(path.name))
        var location = path.parent.components
        var hops = 0
        do {
            try follow(target, from: &location, hops: &hops)
        } catch where error.code == .symlink {
            throw AssetPackError(.symlink, "\(AssetPath.quoted(path.string)) links to \(AssetPath.quoted(target)), which \(error.message)",
                                 path: error.path)
        }
    }

    /// Moves `location` along `target`.
    private func follow(_ target: String, from location: inout [String], hops: inout Int) throws(AssetPackError) {
        // Bytes, not Characters: "/" followed by a combining mark is one Character, yet a separator on disk.
        let slash = UInt8(ascii: "/")
        if target.utf8.first == slash { throw escape(target) }
        for component in target.utf8.split(separator: slash).map({ String(decoding: $0, as: UTF8.self) }) {
            switch component {
            case ".":
                continue
            case "..":
                if location.isEmpty { throw escape(target) }
                location.removeLast()
            default:
                guard let folder = try? DirectoryCursor(root: root).directory(try AssetPath(location.joined(separator: "/")).components),
                      let status = try? folder.status(component), status.kind == .symlink else {
                    location.append(component)  // a folder, a file, or missing: no link to follow here
                    continue
                }
                hops += 1
                if hops > Self.maxHops {
                    throw AssetPackError(.symlink, "passes through too many symbolic links (a loop?)", path: root.path)
                }
                let next = try io(folder.readSymlink(component))
                try follow(next, from: &location, hops: &hops)
            }
        }
    }

    private func escape(_ target: String) -> AssetPackError {
        AssetPackError(.symlink, "resolves outside the destination (at \(AssetPath.quoted(target)))", path: root.path)
    }
}
