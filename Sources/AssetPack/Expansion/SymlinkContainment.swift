/// Checks that a symlink created in a tree resolves inside the tree, on the real file system: the target
/// is followed one component at a time from the tree's root descriptor, links met on the way are read
/// and followed the same way (at most 40 of them), and a `..` that would climb above the root is an
/// escape. The check runs after every link of the tree exists, so a link cannot be judged before the
/// links it passes through are there. A target that stops at a missing name is dangling but contained.
struct SymlinkContainment {
    let root: Descriptor
    private static let maxHops = 40

    /// Throws ``AssetPackError/Code/symlink`` when the link at `path` escapes the tree.
    func check(_ path: AssetPath) throws(AssetPackError) {
        let parent = try DirectoryCursor(root: root).directory(path.parent)
        let target = try FileSystem.readSymlink(path.name, in: parent.fd, path: root.path + "/" + path.string)
        var location = path.parent.components
        var hops = 0
        _ = try follow(target, from: &location, hops: &hops)
    }

    /// Moves `location` along `target`; returns false when resolution stopped at a missing name.
    private func follow(_ target: String, from location: inout [String], hops: inout Int) throws(AssetPackError) -> Bool {
        if target.hasPrefix("/") { throw escape(target) }
        for component in target.split(separator: "/").map(String.init) {
            switch component {
            case ".":
                continue
            case "..":
                if location.isEmpty { throw escape(target) }
                location.removeLast()
            default:
                guard let folder = try? DirectoryCursor(root: root).directory(try AssetPath(location.joined(separator: "/"))),
                      let status = try folder.status(component) else { return false }
                if status.kind == .symlink {
                    hops += 1
                    if hops > Self.maxHops { throw AssetPackError(.symlink, "too many levels of symbolic links", path: root.path) }
                    let next = try FileSystem.readSymlink(component, in: folder.fd, path: folder.path + "/" + component)
                    guard try follow(next, from: &location, hops: &hops) else { return false }
                } else {
                    location.append(component)
                }
            }
        }
        return true
    }

    private func escape(_ target: String) -> AssetPackError {
        AssetPackError(.symlink, "symbolic link target \"\(target)\" resolves outside the destination", path: root.path)
    }
}
