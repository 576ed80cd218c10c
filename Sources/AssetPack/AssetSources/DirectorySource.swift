import AssetPackZip

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An asset tree that is a folder on disk.
///
/// Names are returned exactly as the file system gives them (never normalized); a name that is not
/// valid UTF-8 makes `list` of its folder throw `.unsafePath`.
///
/// **Symbolic links.** A link inside the tree is listed by its parent (as the file system shows it) but
/// never followed, wherever it points: `open`, `list`, ``size(of:)`` and ``randomAccess(_:)`` of a path
/// that is or passes through a link throw ``AssetPackError/Code/symlink``, and ``filePath(_:)`` returns
/// nil. So a walk of a tree that holds a link fails loudly instead of reading outside the root, and the
/// packer and expander never see a link as a file. Only the root itself is resolved normally.
///
/// FIFOs, sockets and devices are refused with `.unsupported` (opening one never blocks).
public struct DirectorySource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// The folder the tree starts at.
    public var root: String { files.root }
    private let files: RootedFileSystem

    /// A source over the folder at `root`. Nothing is checked until the first call: a missing root
    /// behaves as an empty tree.
    public init(root: String) {
        self.files = RootedFileSystem(root: root)
    }

    /// The root folder's path.
    public var name: String { root }

    /// The names in the folder at `path`; `[]` for a file or a missing path.
    /// - Throws: `.symlink` when `path` is or passes through a link; `.io` when the folder cannot be read.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        try files.listNames(path)
    }

    /// Opens the regular file at `path` for reading front to back.
    /// - Throws: `.notFound` for a folder or a missing path, `.symlink`, `.unsupported`, `.io`.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        let opened = try files.openFile(path)
        return FileDescriptorStream(descriptor: opened.descriptor, name: files.diskPath(path), closeOnDeinit: true)
    }

    /// The size of the regular file at `path`; nil for a folder, a special file or a missing path.
    /// - Throws: `.symlink` when `path` is or passes through a link.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? {
        guard let info = try files.linkStatus(path) else { return nil }
        if RootedFileSystem.isLink(info) { throw RootedFileSystem.symlinkRefused(files.diskPath(path)) }
        return info.st_mode & S_IFMT == S_IFREG ? UInt64(info.st_size) : nil
    }

    /// The file at `path` for positioned reads (a ``FileSource``).
    /// - Throws: as ``open(_:)``; `.symlink` when the path was swapped for something else while it was opened.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        let shown = files.diskPath(path)
        let opened = try files.openFile(path)
        defer { _ = close(opened.descriptor) }
        let source: FileSource
        do {
            source = try FileSource(path: shown)
        } catch {
            throw AssetPackError(error, path: shown)
        }
        // FileSource opens by path; make sure it opened the very file the link-free walk found.
        let reopened = try RootedFileSystem.status(of: source.descriptor, shown: shown)
        guard reopened.st_dev == opened.status.st_dev, reopened.st_ino == opened.status.st_ino else {
            throw AssetPackError(.symlink, "changed while it was being opened", path: shown)
        }
        return source
    }

    /// The on-disk path of the regular file at `path`, or nil for anything else (folders, links,
    /// special files, missing paths, or paths that cannot be checked).
    public func filePath(_ path: AssetPath) -> String? {
        guard let info = try? files.linkStatus(path), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return files.diskPath(path)
    }

    /// The regular files below ``root``: ``AssetStorage/folder(root:)``.
    public var storage: AssetStorage { .folder(root: root) }
}
