/// Removes a file or a whole folder tree by descriptor, never following a symlink (a link is removed,
/// not what it points to). It only ever removes assetpack's own trees (staging, previous versions, strays
/// inside them), so a folder whose owner bits were taken away since (an app that made a folder read-only)
/// gets owner read, write and search back first instead of leaving the tree half removed.
enum TreeRemoval {
    /// Removes `name` inside `directory`, recursively; a missing name is not an error.
    static func remove(_ name: String, in directory: Descriptor) throws(AssetPackError) {
        guard let status = try directory.status(name) else { return }
        if status.kind == .directory {
            if status.permissions & 0o700 != 0o700 {
                try FileSystem.setPermissions(name, in: directory.fd, status.permissions | 0o700, path: directory.path + "/" + name)
            }
            let child = try directory.directory(name)
            for inner in try child.names() { try remove(inner, in: child) }
        }
        try FileSystem.remove(name, in: directory.fd, isDirectory: status.kind == .directory, path: directory.path + "/" + name)
    }
}
