/// Calls by path, for code that works with paths rather than descriptors (the packer, the installer's
/// first steps). Each retries on `EINTR` and throws a ``SystemError`` naming the call and the path.
/// Code below a folder it does not trust uses ``Descriptor`` instead, which never follows a link.
package enum FileSystem {
    // MARK: - Looking

    /// `lstat(2)` (or `stat(2)` when `followingLinks`); nil when nothing is at `path`.
    package static func status(_ path: String, followingLinks: Bool = false) throws(SystemError) -> FileStatus? {
        try lookUp(path, followingLinks: followingLinks).value(orNilFor: .noSuchFileOrDirectory, .notDirectory)
    }

    private static func lookUp(_ path: String, followingLinks: Bool) -> Result<FileStatus, SystemError> {
        var info = CInterop.Status()
        let found = followingLinks
            ? systemCall("stat", path) { system_stat(path, &info) }
            : systemCall("lstat", path) { system_lstat(path, &info) }
        return found.map { _ in FileStatus(info) }
    }

    /// True when `path` names anything (`lstat(2)`).
    package static func exists(_ path: String) -> Bool {
        (try? status(path)) != nil
    }

    /// The names in the folder at `path` (`opendir`, `readdir`; see ``FileName`` for names that are not UTF-8).
    package static func names(in path: String) throws(SystemError) -> [FileName] {
        let stream = try systemCall("opendir", path) { system_opendir(path) }.get()
        return try FileName.readAll(stream, path: path)
    }

    /// The absolute path with every symlink, `.` and `..` resolved (`realpath(3)`), or nil when it does not exist.
    package static func canonicalPath(_ path: String) -> String? {
        guard let resolved = system_realpath(path) else { return nil }
        defer { system_free(resolved) }
        return String(cString: resolved)
    }

    /// The current directory (`getcwd(3)`).
    package static func currentDirectory() throws(SystemError) -> String {
        let cwd = try systemCall("getcwd", ".") { system_getcwd() }.get()
        defer { system_free(cwd) }
        return String(cString: cwd)
    }

    /// The process's file-creation mask, or nil when it cannot be read without changing it (it is read
    /// from `/proc/self/status` on Linux; `umask(2)` itself would change it for every thread).
    package static func creationMask() -> UInt32? {
        #if os(Linux)
        guard let text = try? smallProcFile("/proc/self/status") else { return nil }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }) else { return nil }
        return UInt32(line.dropFirst("Umask:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8)
        #else
        return nil
        #endif
    }

    // MARK: - Changing

    /// `mkdir(2)` with `permissions` exactly (the umask is undone with `chmod`).
    package static func makeDirectory(_ path: String, permissions: UInt32 = 0o755) throws(SystemError) {
        _ = try systemCall("mkdir", path) { system_mkdir(path, CInterop.Mode(permissions)) }.get()
        try setPermissions(path, permissions)
    }

    /// Creates `path` and any missing folder above it (`mkdir -p`, mode 0755 before the umask); folders that
    /// exist are fine. A failure names the folder that could not be made — or, when writing is refused
    /// (permission denied, read-only file system), the folder that refused it — and removes again the
    /// folders this call made before it.
    /// - Returns: the folders this call made, outermost first (for ``removeEmptyDirectories(_:)``).
    @discardableResult
    package static func makeDirectories(_ path: String) throws(SystemError) -> [String] {
        if (try? status(path, followingLinks: true))??.kind == .directory { return [] }
        let parent = parentPath(path)
        let made = parent != path && parent != "." ? try makeDirectories(parent) : []
        switch systemCall("mkdir", path, { system_mkdir(path, 0o755) }) {
        case .success: return made + [path]
        case .failure(let error) where error.errno == .fileExists: return made
        case .failure(var error):
            removeEmptyDirectories(made)
            if [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(error.errno) { error.path = parent }
            throw error
        }
    }

    /// Removes the folders `paths` (as ``makeDirectories(_:)`` returns them), innermost first, each only
    /// while it is empty (`rmdir(2)`): a folder something else was put in since stays, and so do the
    /// folders above it. Best effort: nothing is reported.
    package static func removeEmptyDirectories(_ paths: [String]) {
        for path in paths.reversed() {
            guard (try? systemCall("rmdir", path, { system_rmdir(path) }).get()) != nil else { return }
        }
    }

    /// Creates the new file `path` (`O_EXCL`: never replacing one) for writing, with `permissions` exactly
    /// (the umask is undone with `fchmod`).
    package static func createFile(_ path: String, permissions: UInt32) throws(SystemError) -> FileDescriptor {
        let file = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive], permissions: permissions)
        do {
            try file.setPermissions(permissions, path: path)
        } catch {
            file.close()
            throw error
        }
        return file
    }

    /// `chmod(2)`.
    package static func setPermissions(_ path: String, _ permissions: UInt32) throws(SystemError) {
        _ = try systemCall("chmod", path) { system_chmod(path, CInterop.Mode(permissions)) }.get()
    }

    /// `mkdtemp(3)`: a new, empty, uniquely named folder `prefix` + six random characters.
    package static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        var template = Array((prefix + "XXXXXX").utf8CString)
        _ = try template.withUnsafeMutableBufferPointer { buffer in
            systemCall("mkdtemp", prefix + "XXXXXX") { system_mkdtemp(buffer.baseAddress!) }
        }.get()
        return String(cString: template.map { UInt8(bitPattern: $0) })
    }

    /// `mkstemp(3)`: a new, empty, uniquely named file `prefix` + six random characters, open for writing.
    package static func makeTemporaryFile(prefix: String) throws(SystemError) -> (path: String, descriptor: FileDescriptor) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = try template.withUnsafeMutableBufferPointer { buffer in
            systemCall("mkstemp", prefix + "XXXXXX") { system_mkstemp(buffer.baseAddress!) }
        }.get()
        return (String(cString: template.map { UInt8(bitPattern: $0) }), FileDescriptor(rawValue: fd))
    }

    /// `rename(2)`: atomic within one file system. A failure reads `FROM: rename to TO failed: …`.
    package static func rename(_ from: String, to: String) throws(SystemError) {
        if case .failure(var error) = systemCall("rename", from, { system_rename(from, to) }) {
            error.call = "rename to \(to)"
            throw error
        }
    }

    /// `link(2)`: a second name for the same file; returns false (instead of throwing) when the file system
    /// cannot link (another device, no hard links, too many links), so the caller can copy instead.
    package static func hardLink(_ existing: String, to newPath: String) throws(SystemError) -> Bool {
        switch systemCall("link", existing, { system_link(existing, newPath) }) {
        case .success: return true
        case .failure(let error) where [.improperLink, .notPermitted, .tooManyLinks, .notSupported, .noFunction].contains(error.errno):
            return false
        case .failure(var error):
            error.call = "link to \(newPath)"
            throw error
        }
    }

    /// Removes `path` and everything below it, never following symlinks below it (links in the path above
    /// it are the caller's); a missing path is fine (`TreeRemoval`).
    package static func removeTree(_ path: String) throws(SystemError) {
        guard let parent = try Descriptor.existingDirectory(atPath: parentPath(path)) else { return }
        try TreeRemoval.remove(lastComponent(path), in: parent)
    }

    // MARK: - Path text

    /// `path` without its last component (`"."` for a bare name, `"/"` for a top-level path).
    package static func parentPath(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component of `path`.
    package static func lastComponent(_ path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.last.map(String.init) ?? path
    }
}
