/// An open file descriptor owned by this object and closed when it goes away, with the path it stands for
/// (for error messages). Directory descriptors are what every `…at` call in the installer starts from.
final class Descriptor: @unchecked Sendable {
    /// The descriptor.
    let fd: Int32
    /// The path shown in messages.
    let path: String

    /// Takes ownership of `fd`.
    init(_ fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { FileSystem.close(fd) }

    /// Opens the directory at `path` (the caller's own path: links in it are the caller's choice).
    static func directory(_ path: String) throws(AssetPackError) -> Descriptor {
        Descriptor(try FileSystem.openDirectory(path), path: path)
    }

    /// Opens the child directory `name`, never following a symlink.
    func directory(_ name: String) throws(AssetPackError) -> Descriptor {
        let childPath = path + "/" + name
        return Descriptor(try FileSystem.openDirectory(name, in: fd, path: childPath), path: childPath)
    }

    /// Opens the child directory `name`, creating it with `mode` when missing; never follows a symlink.
    func directory(_ name: String, creatingWith mode: UInt32) throws(AssetPackError) -> Descriptor {
        let childPath = path + "/" + name
        try FileSystem.makeDirectory(name, in: fd, mode: mode, path: childPath)
        return Descriptor(try FileSystem.openDirectory(name, in: fd, path: childPath), path: childPath)
    }

    /// What is at `name` in this directory, not following a symlink; nil when nothing is.
    func status(_ name: String) throws(AssetPackError) -> FileSystem.Status? {
        try FileSystem.status(name, in: fd, path: path + "/" + name)
    }

    /// The names in this directory.
    func names() throws(AssetPackError) -> [String] {
        try FileSystem.names(in: fd, path: path)
    }
}
