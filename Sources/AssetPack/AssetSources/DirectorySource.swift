import AssetPackSystem
import AssetPackZip

/// An asset tree that is a folder on disk.
///
/// Names are returned exactly as the file system gives them (never normalized); a name that is not
/// valid UTF-8 makes `list` of its folder throw `.unsafePath`.
///
/// **Symbolic links.** A link inside the tree is listed by its parent (as the file system shows it) but
/// never followed, wherever it points: `open`, `list`, ``size(of:)`` and ``randomAccess(_:)`` of a path
/// that is or passes through a link throw ``AssetPackError/Code/symlink``, and ``filePath(_:)`` returns
/// nil, so nothing is read outside the root. Only the root itself is resolved normally.
///
/// FIFOs, sockets and devices are refused with `.unsupported` (opening one never blocks).
public struct DirectorySource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// The folder the tree starts at, without a trailing `/` (unless it is `/`).
    public let root: String

    /// A source over the folder at `root`. Nothing is checked until the first call: a missing root
    /// behaves as an empty tree.
    public init(root: String) {
        var trimmed = root
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
    }

    /// The root folder's path.
    public var name: String { root }

    /// The names in the folder at `path`; `[]` for a file or a missing path.
    /// - Throws: `.symlink` when `path` is or passes through a link; `.unsafePath` for a name that is not
    ///   UTF-8; `.io` when the folder cannot be read.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        guard let folder = try openDirectory(path) else { return [] }
        guard let names = try io(folder.names()).strings else {
            throw AssetPackError(.unsafePath, "holds a name that is not valid UTF-8", path: diskPath(path))
        }
        return names
    }

    /// Opens the regular file at `path` for reading front to back.
    /// - Throws: `.notFound` for a folder or a missing path, `.symlink`, `.unsupported`, `.io`.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let opened = try openFile(path)
        return FileDescriptorStream(descriptor: opened.file.detach().rawValue, name: diskPath(path), closeOnDeinit: true)
    }

    /// The size of the regular file at `path`; nil for a folder, a special file or a missing path.
    /// - Throws: `.symlink` when `path` is or passes through a link.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? {
        guard let info = try linkStatus(path) else { return nil }
        if info.kind == .symlink { throw Self.symlinkRefused(diskPath(path)) }
        return info.kind == .file ? info.size : nil
    }

    /// The file at `path` for positioned reads (a `FileSource`).
    /// - Throws: as ``open(_:)``; `.symlink` when the path was swapped for something else while it was opened.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        let shown = diskPath(path)
        let opened = try openFile(path)
        let source = try zipLayer(FileSource(path: shown), path: shown)
        // FileSource opens by path; make sure it opened the very file the link-free walk found.
        let reopened = try io(FileDescriptor(rawValue: source.descriptor).status(path: shown))
        guard reopened.device == opened.status.device, reopened.inode == opened.status.inode else {
            throw AssetPackError(.symlink, "changed while it was being opened", path: shown)
        }
        return source
    }

    /// The on-disk path of the regular file at `path`, or nil for anything else (folders, links,
    /// special files, missing paths, or paths that cannot be checked).
    public func filePath(_ path: AssetPath) -> String? {
        guard let info = try? linkStatus(path), info.kind == .file else { return nil }
        return diskPath(path)
    }
}

/// Lookups below the root: every component is opened on its own with `O_NOFOLLOW` from the folder above
/// (``Descriptor/existingDirectory(at:)``), so a link anywhere in a path is reported as `.symlink` instead
/// of being resolved, and a link swapped in while a path is being opened cannot redirect the open. The
/// root itself is opened normally (it is the caller's choice, and may itself be a link).
extension DirectorySource {
    /// Where `path` is on disk, for messages and for ``AssetStorage/folder(root:)``.
    func diskPath(_ path: AssetPath) -> String {
        if path.isRoot { return root }
        return root.hasSuffix("/") ? root + path.string : root + "/" + path.string
    }

    /// The regular file at `path`, open for reading, and its status.
    /// - Throws: `.notFound` for a missing path or a directory, `.symlink`, `.unsupported` for a FIFO,
    ///   socket or device, `.io`.
    private func openFile(_ path: AssetPath) throws(AssetPackError) -> (file: Descriptor, status: FileStatus) {
        let shown = diskPath(path)
        // O_NONBLOCK: opening a FIFO must not hang; it is refused just below. Regular files ignore it.
        guard !path.isRoot, let folder = try openDirectory(path.parent),
              let file = try confined(folder.openExisting(path.name, .nonBlocking), shown: shown) else {
            throw AssetPackError(.notFound, "no such file", path: shown)
        }
        let status = try io(file.status())
        switch status.kind {
        case .file: return (file, status)
        case .directory: throw AssetPackError(.notFound, "is a directory, not a file", path: shown)
        default: throw AssetPackError(.unsupported, "is not a regular file (a FIFO, socket or device)", path: shown)
        }
    }

    /// The status of the node at `path` without following a final link, or nil when it is missing.
    private func linkStatus(_ path: AssetPath) throws(AssetPackError) -> FileStatus? {
        guard !path.isRoot, let folder = try openDirectory(path.parent) else { return nil }
        return try io(folder.status(path.name))
    }

    /// The folder at `path`, opened one component at a time; nil when it is missing or not a folder.
    private func openDirectory(_ path: AssetPath) throws(AssetPackError) -> Descriptor? {
        guard let top = try io(Descriptor.existingDirectory(atPath: root)) else { return nil }
        return try confined(top.existingDirectory(at: path.components))
    }

    /// What `lookup` found; a link on the way is `.symlink` naming it (or `shown`).
    private func confined<T>(_ lookup: @autoclosure () throws(SystemError) -> T, shown: String? = nil) throws(AssetPackError) -> T {
        do {
            return try lookup()
        } catch where error.errno == .tooManySymbolicLinkLevels {
            throw Self.symlinkRefused(shown ?? error.path ?? root)
        } catch {
            throw AssetPackError(error)
        }
    }

    /// The error for a link met below the root.
    static func symlinkRefused(_ shown: String) -> AssetPackError {
        AssetPackError(.symlink, "is a symbolic link; links inside an asset folder are never followed", path: shown)
    }

    /// The regular files below ``root``: ``AssetStorage/folder(root:)``.
    public var storage: AssetStorage { .folder(root: root) }
}
