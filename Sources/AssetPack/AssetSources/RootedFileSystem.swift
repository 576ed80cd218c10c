#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system access confined to the tree under one root folder, and the only code of ``DirectorySource``
/// that touches libc. Below the root no symbolic link is ever followed: every component is opened on its
/// own with `openat(2)` and `O_NOFOLLOW`, so a link anywhere in a path is reported as `.symlink` instead of
/// being resolved, and a link swapped in while a path is being opened cannot redirect the open.
/// The root itself is opened normally (it is the caller's choice, and may itself be a link).
struct RootedFileSystem: Sendable {
    /// The root folder, without a trailing `/` (unless it is `/`).
    let root: String

    init(root: String) {
        var trimmed = root
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.root = trimmed
    }

    /// Where `path` is on disk, for messages and for ``FileBackedAssetSource``.
    func diskPath(_ path: AssetPath) -> String {
        if path.isRoot { return root }
        return root.hasSuffix("/") ? root + path.string : root + "/" + path.string
    }

    /// The names in the directory at `path`, as the file system gives them; `[]` when `path` is missing
    /// or not a directory.
    /// - Throws: `.symlink` when a component is a link, `.unsafePath` for a name that is not UTF-8, `.io`.
    func listNames(_ path: AssetPath) throws(AssetPackError) -> [String] {
        guard let descriptor = try openDirectory(path) else { return [] }
        guard let stream = fdopendir(descriptor) else {
            let code = errno
            _ = close(descriptor)
            throw AssetPackError.system("fdopendir", path: diskPath(path), errno: code)
        }
        defer { _ = closedir(stream) }
        return try readNames(stream, shown: diskPath(path))
    }

    /// Opens the regular file at `path` for reading; the caller owns the descriptor.
    /// - Throws: `.notFound` for a missing path or a directory, `.symlink`, `.unsupported` for a FIFO,
    ///   socket or device, `.io`.
    func openFile(_ path: AssetPath) throws(AssetPackError) -> (descriptor: Int32, status: stat) {
        let shown = diskPath(path)
        let opened = try withParent(of: path) { (parent) throws(AssetPackError) -> Int32? in
            // O_NONBLOCK: opening a FIFO must not hang; it is refused just below. Regular files ignore it.
            try openChild(path.name, in: parent, flags: O_RDONLY | O_NONBLOCK, shown: shown)
        }
        guard let descriptor = opened ?? nil else { throw AssetPackError(.notFound, "no such file", path: shown) }
        do {
            let info = try Self.status(of: descriptor, shown: shown)
            try Self.requireRegularFile(info, shown: shown)
            return (descriptor, info)
        } catch {
            _ = close(descriptor)
            throw error
        }
    }

    /// The status of the node at `path` without following a final link, or nil when it is missing.
    func linkStatus(_ path: AssetPath) throws(AssetPackError) -> stat? {
        if path.isRoot { return nil }
        let shown = diskPath(path)
        let found = try withParent(of: path) { (parent) throws(AssetPackError) -> stat? in
            var info = stat()
            if fstatat(parent, path.name, &info, AT_SYMLINK_NOFOLLOW) == 0 { return info }
            let code = errno
            if code == ENOENT || code == ENOTDIR { return nil }
            throw AssetPackError.system("fstatat", path: shown, errno: code)
        }
        return found ?? nil
    }

    /// Runs `body` with the directory holding `path` open; nil when that directory is missing.
    private func withParent<T>(of path: AssetPath, _ body: (Int32) throws(AssetPackError) -> T) throws(AssetPackError) -> T? {
        guard !path.isRoot, let descriptor = try openDirectory(path.parent) else { return nil }
        defer { _ = close(descriptor) }
        return try body(descriptor)
    }

    /// Opens the directory at `path` one component at a time; nil when it is missing or not a directory.
    private func openDirectory(_ path: AssetPath) throws(AssetPackError) -> Int32? {
        guard var current = try openRoot() else { return nil }
        for depth in path.components.indices {
            let shown = root + "/" + path.components[0...depth].joined(separator: "/")
            let next: Int32?
            do {
                next = try openChild(path.components[depth], in: current, flags: O_RDONLY | O_DIRECTORY, shown: shown)
            } catch {
                _ = close(current)
                throw error
            }
            _ = close(current)
            guard let next else { return nil }
            current = next
        }
        return current
    }

    private func openRoot() throws(AssetPackError) -> Int32? {
        while true {
            let descriptor = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            let code = errno
            if code == EINTR { continue }
            if code == ENOENT || code == ENOTDIR { return nil }
            throw AssetPackError.system("open", path: root, errno: code)
        }
    }

    /// `openat(2)` of one name with `O_NOFOLLOW`; nil when the name is missing (or, with `O_DIRECTORY`,
    /// not a directory). A link throws `.symlink` (Linux reports a link opened with `O_DIRECTORY` as
    /// ENOTDIR, so that case is told apart with `fstatat`).
    private func openChild(_ name: String, in directory: Int32, flags: Int32, shown: String) throws(AssetPackError) -> Int32? {
        while true {
            let descriptor = openat(directory, name, flags | O_NOFOLLOW | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            let code = errno
            switch code {
            case EINTR: continue
            case ENOENT: return nil
            case ENOTDIR where Self.isLink(name, in: directory): throw Self.symlinkRefused(shown)
            case ENOTDIR: return nil
            case ELOOP: throw Self.symlinkRefused(shown)
            default: throw AssetPackError.system("openat", path: shown, errno: code)
            }
        }
    }

    private static func isLink(_ name: String, in directory: Int32) -> Bool {
        var info = stat()
        return fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && isLink(info)
    }

    /// True when `info` describes a symbolic link.
    static func isLink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }

    private func readNames(_ stream: DirectoryStream, shown: String) throws(AssetPackError) -> [String] {
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                let code = errno
                if code != 0 { throw AssetPackError.system("readdir", path: shown, errno: code) }
                return names
            }
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            // Decoding repairs bad UTF-8 with U+FFFD, so a name that does not survive the round trip was not UTF-8.
            let name = String(decoding: bytes, as: UTF8.self)
            guard name.utf8.elementsEqual(bytes) else {
                throw AssetPackError(.unsafePath, "holds a name that is not valid UTF-8", path: shown)
            }
            names.append(name)
        }
    }

    /// The error for a link met below the root.
    static func symlinkRefused(_ shown: String) -> AssetPackError {
        AssetPackError(.symlink, "is a symbolic link; links inside an asset folder are never followed", path: shown)
    }

    /// `fstat(2)`.
    static func status(of descriptor: Int32, shown: String) throws(AssetPackError) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw AssetPackError.system("fstat", path: shown, errno: errno) }
        return info
    }

    private static func requireRegularFile(_ info: stat, shown: String) throws(AssetPackError) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw AssetPackError(.notFound, "is a directory, not a file", path: shown)
        default: throw AssetPackError(.unsupported, "is not a regular file (a FIFO, socket or device)", path: shown)
        }
    }
}

#if canImport(Darwin)
/// What `fdopendir(3)` returns.
private typealias DirectoryStream = UnsafeMutablePointer<DIR>
#else
/// What `fdopendir(3)` returns.
private typealias DirectoryStream = OpaquePointer
#endif
