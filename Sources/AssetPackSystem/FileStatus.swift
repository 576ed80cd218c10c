/// What `stat(2)` says about a node: the one conversion of `st_mode` into a kind for the whole package.
package struct FileStatus: Hashable, Sendable {
    /// The kind of node.
    package var kind: FileKind
    /// The size in bytes (of a regular file; of the target path for a link).
    package var size: UInt64
    /// The permission bits, `st_mode & 0o7777`.
    package var permissions: UInt32
    /// The device that holds it.
    package var device: UInt64
    /// Its inode number on that device.
    package var inode: UInt64
    /// When its contents last changed: whole seconds since 1970-01-01 UTC (`st_mtime`).
    package var modified: Int64
    /// When its contents last changed, in nanoseconds since 1970-01-01 UTC (`st_mtim`, as fine as the file
    /// system keeps it).
    package var modifiedNanoseconds: Int64
    /// How many names the node has (`st_nlink`): more than one for a file that is also linked elsewhere.
    package var links: UInt64

    /// True when the owner may execute the file (the bit zip tools look at).
    package var isExecutable: Bool { permissions & 0o100 != 0 }
}

/// The kind of a node, from the `S_IFMT` bits of its mode.
package enum FileKind: Hashable, Sendable, CustomStringConvertible {
    case file, directory, symlink, fifo, socket
    /// A character or block device.
    case device
    /// Anything else a file system may report.
    case other

    /// How messages name it: "file", "folder", "symbolic link", "FIFO", "socket", "device", "special file".
    package var description: String {
        switch self {
        case .file: "file"
        case .directory: "folder"
        case .symlink: "symbolic link"
        case .fifo: "FIFO"
        case .socket: "socket"
        case .device: "device"
        case .other: "special file"
        }
    }
}

/// Free space on a file system, as `statvfs(2)` reports it for an unprivileged writer.
package struct FileSystemSpace: Hashable, Sendable {
    /// Bytes an unprivileged writer may still use.
    package var free: UInt64
    /// The allocation unit (at least 512).
    package var blockSize: UInt64
}
