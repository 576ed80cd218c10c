#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import AssetPack

/// The one file of the packer that calls libc: `lstat`, `open` with `O_NOFOLLOW`, `readdir`, `mkdtemp`,
/// `rename`, `link`, `realpath`, and friends. Every call retries on EINTR where that can happen, and every
/// failure becomes an ``AssetPackError`` naming the call, the path and errno. Reading and writing through a
/// descriptor (`pread`, `write`) is the expander's ``AssetPack/FileSystem``, shared.
enum FileSystem {
    /// What `lstat`/`stat` says about a path.
    struct Info: Equatable {
        /// The kind of node.
        enum Kind: Equatable {
            case file, directory, symlink
            /// A FIFO, socket or device; the string names it for messages.
            case special(String)
        }

        var kind: Kind
        var size: UInt64
        var permissions: UInt32
        var device: UInt64
        var inode: UInt64

        /// True when the owner may execute the file (the bit zip tools and the writer look at).
        var isExecutable: Bool { permissions & 0o100 != 0 }
    }

    // MARK: - Looking

    /// `lstat(2)` (or `stat(2)` when `follow` is true); nil when nothing is at `path`.
    static func info(_ path: String, follow: Bool = false) throws(AssetPackError) -> Info? {
        var raw = stat()
        let status = follow ? stat(path, &raw) : lstat(path, &raw)
        guard status == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .system(follow ? "stat" : "lstat", path: path, errno: errno)
        }
        return Info(kind: kind(of: UInt32(raw.st_mode)), size: UInt64(raw.st_size),
                    permissions: UInt32(raw.st_mode) & 0o7777, device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
    }

    private static func kind(of mode: UInt32) -> Info.Kind {
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): .file
        case UInt32(S_IFDIR): .directory
        case UInt32(S_IFLNK): .symlink
        case UInt32(S_IFIFO): .special("FIFO")
        case UInt32(S_IFSOCK): .special("socket")
        case UInt32(S_IFCHR), UInt32(S_IFBLK): .special("device")
        default: .special("special file")
        }
    }

    /// The names in the directory at `path` (without `.` and `..`), in the order `readdir` gives them.
    /// - Throws: `.unsafePath` for a name that is not valid UTF-8; `.io` when the folder cannot be read.
    static func names(in path: String) throws(AssetPackError) -> [String] {
        guard let directory = opendir(path) else { throw .system("opendir", path: path, errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw .system("readdir", path: path, errno: errno) }
                return names
            }
            let name = try entryName(entry, in: path)
            if name != "." && name != ".." { names.append(name) }
        }
    }

    private static func entryName(_ entry: UnsafeMutablePointer<dirent>, in path: String) throws(AssetPackError) -> String {
        let decoded = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                String(validatingCString: $0)
            }
        }
        guard let decoded else {
            throw AssetPackError(.unsafePath, "holds a file whose name is not valid UTF-8", path: path)
        }
        return decoded
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The current directory.
    static func currentDirectory() throws(AssetPackError) -> String {
        guard let cwd = getcwd(nil, 0) else { throw .system("getcwd", path: ".", errno: errno) }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    // MARK: - Files

    /// Opens `path` for reading; with `follow` false a symlink is refused (`O_NOFOLLOW`, errno ELOOP).
    static func openForReading(_ path: String, follow: Bool) throws(AssetPackError) -> Int32 {
        let flags = O_RDONLY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW)
        while true {
            let fd = open(path, flags)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ELOOP && !follow {
                throw AssetPackError(.symlink, "became a symbolic link while packing", path: path, errno: ELOOP)
            }
            throw .system("open", path: path, errno: errno)
        }
    }

    /// Creates a new file (never replacing one) with `permissions`, whatever the umask.
    static func createFile(_ path: String, permissions: UInt32) throws(AssetPackError) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
            if fd >= 0 {
                try setPermissions(descriptor: fd, permissions, path: path)
                return fd
            }
            if errno == EINTR { continue }
            throw .system("open", path: path, errno: errno)
        }
    }

    /// `fstat(2)`: the size of the open file.
    static func size(of fd: Int32, path: String) throws(AssetPackError) -> UInt64 {
        var raw = stat()
        guard fstat(fd, &raw) == 0 else { throw .system("fstat", path: path, errno: errno) }
        return UInt64(raw.st_size)
    }

    /// `write(2)` of a whole array (through the expander's ``AssetPack/FileSystem/writeAll(_:_:path:)``).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(AssetPackError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(AssetPackError) in try AssetPack.FileSystem.writeAll(fd, raw, path: path) }
        }
        try result.get()
    }

    /// `close(2)` of a descriptor this module opened for writing: a failure means lost data, so it throws.
    static func closeWritten(_ fd: Int32, path: String) throws(AssetPackError) {
        guard close(fd) == 0 else { throw .system("close", path: path, errno: errno) }
    }

    /// `close(2)` of a descriptor opened for reading; errors do not matter.
    static func closeRead(_ fd: Int32) { _ = close(fd) }

    /// `fchmod(2)`.
    static func setPermissions(descriptor fd: Int32, _ permissions: UInt32, path: String) throws(AssetPackError) {
        guard fchmod(fd, mode_t(permissions)) == 0 else { throw .system("fchmod", path: path, errno: errno) }
    }

    /// `chmod(2)`.
    static func setPermissions(_ path: String, _ permissions: UInt32) throws(AssetPackError) {
        guard chmod(path, mode_t(permissions)) == 0 else { throw .system("chmod", path: path, errno: errno) }
    }

    /// `memcmp(3)`: true when the `count` bytes at `left` and `right` are equal.
    static func equalBytes(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, count: Int) -> Bool {
        memcmp(left, right, count) == 0
    }

    // MARK: - Folders and names

    /// `mkdir(2)` with `permissions` exactly (the umask is undone with `chmod`).
    static func makeDirectory(_ path: String, permissions: UInt32 = 0o755) throws(AssetPackError) {
        guard mkdir(path, mode_t(permissions)) == 0 else { throw .system("mkdir", path: path, errno: errno) }
        try setPermissions(path, permissions)
    }

    /// Creates `path` and any missing parents (like `mkdir -p`); existing folders are fine.
    static func makeDirectories(_ path: String) throws(AssetPackError) {
        if try info(path, follow: true)?.kind == .directory { return }
        let parent = parentPath(path)
        if parent != path { try makeDirectories(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw .system("mkdir", path: path, errno: errno) }
    }

    /// `mkdtemp(3)`: a new, empty, uniquely named folder `prefix` + six random characters.
    static func makeTemporaryDirectory(prefix: String) throws(AssetPackError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw .system("mkdtemp", path: prefix + "XXXXXX", errno: errno) }
        return String(cString: template.map { UInt8(bitPattern: $0) })
    }

    /// `mkstemp(3)`: a new, empty, uniquely named file `prefix` + six random characters; returns path and descriptor.
    static func makeTemporaryFile(prefix: String) throws(AssetPackError) -> (path: String, descriptor: Int32) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .system("mkstemp", path: prefix + "XXXXXX", errno: errno) }
        return (String(cString: template.map { UInt8(bitPattern: $0) }), fd)
    }

    /// `rename(2)`: atomic within one file system.
    static func rename(_ from: String, to: String) throws(AssetPackError) {
        guard systemRename(from, to) == 0 else {
            throw AssetPackError.system("rename to \(to)", path: from, errno: errno)
        }
    }

    /// `link(2)`: a second name for the same file; returns false (instead of throwing) when the file system
    /// cannot link (another device, no hard links, too many links), so the caller can copy instead.
    static func hardLink(_ existing: String, to newPath: String) throws(AssetPackError) -> Bool {
        if link(existing, newPath) == 0 { return true }
        switch errno {
        case EXDEV, EPERM, EMLINK, ENOTSUP, ENOSYS: return false
        default: throw .system("link to \(newPath)", path: existing, errno: errno)
        }
    }

    /// Removes `path` and everything below it, never following symlinks; a missing path is fine.
    static func removeTree(_ path: String) throws(AssetPackError) {
        guard let node = try info(path) else { return }
        if node.kind == .directory {
            for name in try names(in: path) { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 else { throw .system("rmdir", path: path, errno: errno) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw .system("unlink", path: path, errno: errno) }
        }
    }

    /// `path` without its last component (`"."` for a bare name, `"/"` for a top-level path).
    static func parentPath(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component of `path`.
    static func lastComponent(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.last.map(String.init) ?? path
    }
}

// Module-level shims so the static methods above can share libc's names.
private func systemRename(_ from: String, _ to: String) -> Int32 { rename(from, to) }
