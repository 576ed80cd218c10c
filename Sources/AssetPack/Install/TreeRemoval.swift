/// Removes a file or a whole folder tree by descriptor, never following a symlink (a link is removed,
/// not what it points to).
enum TreeRemoval {
    /// Removes `name` inside `directory`, recursively; a missing name is not an error.
    static func remove(_ name: String, in directory: Descriptor) throws(AssetPackError) {
        guard let status = try directory.status(name) else { return }
        if status.kind == .directory {
            let child = try directory.directory(name)
            for inner in try child.names() { try remove(inner, in: child) }
        }
        try FileSystem.remove(name, in: directory.fd, isDirectory: status.kind == .directory, path: directory.path + "/" + name)
    }
}
