#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the expander and installer touch libc. Every call retries on EINTR and reports failure as
/// an ``AssetPackError`` naming the call, the path (as the caller shows it) and errno.
///
/// Paths below a directory are always resolved one component at a time from a descriptor with
/// `O_NOFOLLOW` (`openat`-style), so a symbolic link already on disk is never followed.
///
/// The descriptor-level reads and writes are `package`: the packer uses them too.
package enum FileSystem {
    /// What `fstatat` says about a name, without following a symlink.
    struct Status {
        enum Kind { case file, directory, symlink, other }
        var kind: Kind
        var size: UInt64
        var permissions: UInt32
        var device: UInt64
        var inode: UInt64
        var links: UInt64
    }

    /// `open(2)` of a directory by path (following links in the caller's own path, which the caller chose).
    static func openDirectory(_ path: String) throws(AssetPackError) -> Int32 {
        try retrying("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    /// `openat(2)` of the directory `name` inside `directory`, never following a symlink.
    static func openDirectory(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> Int32 {
        try retrying("openat", path) { openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// `openat(2)` of an existing regular file for reading, never following a symlink.
    static func openFile(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> Int32 {
        try retrying("openat", path) { openat(directory, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// `openat(2)` of an existing regular file for reading and writing, never following a symlink (a
    /// partly written file of the staging tree that a resume continues).
    static func openFileForUpdate(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> Int32 {
        try retrying("openat", path) { openat(directory, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// `pwrite(2)` until every byte is written at `offset`.
    static func pwriteAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, at offset: UInt64, path: String) throws(AssetPackError) {
        var done = 0
        while done < buffer.count {
            let count = try retrying("pwrite", path) {
                Glibc_pwrite(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            guard count > 0 else { throw .system("pwrite", path: path, errno: EIO) }
            done += count
        }
    }

    /// `ftruncate(2)`.
    static func truncate(_ descriptor: Int32, to size: UInt64, path: String) throws(AssetPackError) {
        _ = try retrying("ftruncate", path) { ftruncate(descriptor, off_t(size)) }
    }

    /// `openat(2)` of a regular file of a source tree for reading, never following a symlink and never
    /// blocking on a FIFO (`O_NONBLOCK`; the caller checks the kind with ``status(of:path:)``). Nil when
    /// the name does not exist.
    static func openSourceFile(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> Int32? {
        while true {
            let fd = openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw AssetPackError(.symlink, "is a symbolic link; links are not followed", path: path) }
            throw .system("openat", path: path, errno: errno)
        }
    }

    /// `openat(2)` creating a new file (`O_EXCL`, never through a symlink) with permission bits `mode`
    /// (owner-only by default; the umask applies), write-only or (`readable`) for reading too.
    static func createFile(_ name: String, in directory: Int32, readable: Bool = false, mode: UInt32 = 0o600,
                           path: String) throws(AssetPackError) -> Int32 {
        let access = readable ? O_RDWR : O_WRONLY
        return try retrying("openat", path) {
            openat(directory, name, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        }
    }

    /// `mkdirat(2)`; returns false when the name already exists.
    @discardableResult
    static func makeDirectory(_ name: String, in directory: Int32, mode: UInt32, path: String) throws(AssetPackError) -> Bool {
        while mkdirat(directory, name, mode_t(mode)) != 0 {
            if errno == EINTR { continue }
            if errno == EEXIST { return false }
            throw .system("mkdirat", path: path, errno: errno)
        }
        return true
    }

    /// `mkdir(2)` for each missing folder of an absolute or relative path (`mkdir -p`).
    static func makeDirectories(_ path: String) throws(AssetPackError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + part
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw .system("mkdir", path: prefix, errno: errno)
            }
        }
    }

    /// `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`; nil when the name does not exist.
    static func status(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> Status? {
        var info = stat()
        while fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == EINTR { continue }
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw .system("fstatat", path: path, errno: errno)
        }
        return Status(info)
    }

    /// `fstat(2)`.
    static func status(of descriptor: Int32, path: String) throws(AssetPackError) -> Status {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .system("fstat", path: path, errno: errno) }
        return Status(info)
    }

    /// True when `path` names anything (`lstat(2)`).
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// `read(2)` once; 0 at the end.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(AssetPackError) -> Int {
        try retrying("read", path) { Glibc_read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// `pread(2)` until `buffer` is full or the file ends.
    package static func pread(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64,
                      path: String) throws(AssetPackError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try retrying("pread", path) {
                Glibc_pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// `write(2)` until every byte is written.
    package static func writeAll(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws(AssetPackError) {
        var done = 0
        while done < buffer.count {
            let count = try retrying("write", path) { Glibc_write(descriptor, buffer.baseAddress! + done, buffer.count - done) }
            guard count > 0 else { throw .system("write", path: path, errno: EIO) }
            done += count
        }
    }

    /// Makes `target` share `source`'s data blocks (`ioctl(FICLONE)`: a reflink on Btrfs, XFS, bcachefs…),
    /// so nothing is copied. Returns false when the file system or kernel cannot (then copy instead).
    static func cloneFile(from source: Int32, to target: Int32, path: String) throws(AssetPackError) -> Bool {
        #if os(Linux)
        let ficlone: UInt = 0x4004_9409  // _IOW(0x94, 9, int)
        while ioctl(target, ficlone, source) != 0 {
            if errno == EINTR { continue }
            if [EOPNOTSUPP, ENOTTY, EXDEV, EINVAL, ENOSYS, EPERM, EBADF, ETXTBSY].contains(errno) { return false }
            throw .system("ioctl(FICLONE)", path: path, errno: errno)
        }
        return true
        #else
        return false
        #endif
    }

    /// Starts writing the file's dirty pages to disk without waiting (`sync_file_range(2)` with
    /// `SYNC_FILE_RANGE_WRITE` on Linux; nothing elsewhere), so that a later `syncfs` finds less to do.
    /// Failures are ignored: this only moves work earlier.
    static func startWriteback(_ descriptor: Int32) {
        #if os(Linux)
        _ = LinuxExtras.syncFileRange?(descriptor, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */)
        #endif
    }

    /// The process's file-creation mask, or nil when it cannot be read without changing it (it is read
    /// from `/proc/self/status` on Linux; `umask(2)` itself would change it for every thread).
    static func creationMask() -> UInt32? {
        #if os(Linux)
        guard let bytes = SmallFiles.read(path: "/proc/self/status", limit: 64 << 10) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }) else { return nil }
        return UInt32(line.dropFirst("Umask:".count).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 8)
        #else
        return nil
        #endif
    }

    /// `fchmod(2)`.
    static func setPermissions(_ descriptor: Int32, _ mode: UInt32, path: String) throws(AssetPackError) {
        _ = try retrying("fchmod", path) { fchmod(descriptor, mode_t(mode)) }
    }

    /// `fchmodat(2)` of `name` inside `directory` with `AT_SYMLINK_NOFOLLOW`: a symlink is never followed
    /// (the call fails on one instead).
    static func setPermissions(_ name: String, in directory: Int32, _ mode: UInt32, path: String) throws(AssetPackError) {
        _ = try retrying("fchmodat", path) { fchmodat(directory, name, mode_t(mode), AT_SYMLINK_NOFOLLOW) }
    }

    /// `fsync(2)`.
    static func sync(_ descriptor: Int32, path: String) throws(AssetPackError) {
        _ = try retrying("fsync", path) { fsync(descriptor) }
    }

    /// True when ``syncFileSystem(_:path:)`` flushes every file written on the file system (Linux's
    /// `syncfs`); elsewhere it flushes only the one descriptor, and files must be flushed one by one.
    static var canSyncFileSystem: Bool {
        #if os(Linux)
        return LinuxExtras.syncfs != nil
        #else
        return false
        #endif
    }

    /// Flushes everything written on the file system holding `descriptor`: `syncfs(2)` on Linux, else
    /// `fsync` of `descriptor` alone (see ``canSyncFileSystem``).
    static func syncFileSystem(_ descriptor: Int32, path: String) throws(AssetPackError) {
        #if os(Linux)
        if let syncfs = LinuxExtras.syncfs {
            _ = try retrying("syncfs", path) { syncfs(descriptor) }
            return
        }
        #endif
        try sync(descriptor, path: path)
    }

    /// `renameat(2)`, replacing the target when it is a file.
    static func rename(_ from: String, in fromDirectory: Int32, to: String, in toDirectory: Int32,
                       path: String) throws(AssetPackError) {
        _ = try retrying("renameat", path) { renameat(fromDirectory, from, toDirectory, to) }
    }

    /// Swaps two names atomically: `renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on
    /// Darwin. Returns false when the system or file system does not support it.
    static func exchange(_ first: String, _ second: String, in directory: Int32, path: String) throws(AssetPackError) -> Bool {
        #if os(Linux)
        guard let renameat2 = LinuxExtras.renameat2 else { return false }
        while renameat2(directory, first, directory, second, 2 /* RENAME_EXCHANGE */) != 0 {
            if errno == EINTR { continue }
            if errno == ENOSYS || errno == EINVAL || errno == ENOTSUP { return false }
            throw .system("renameat2", path: path, errno: errno)
        }
        return true
        #elseif canImport(Darwin)
        while renameatx_np(directory, first, directory, second, UInt32(RENAME_SWAP)) != 0 {
            if errno == EINTR { continue }
            if errno == ENOTSUP || errno == EINVAL { return false }
            throw .system("renameatx_np", path: path, errno: errno)
        }
        return true
        #else
        return false
        #endif
    }

    /// `linkat(2)` without `AT_SYMLINK_FOLLOW`; returns false when hard links are not possible here
    /// (another file system, or a file system without them).
    static func link(_ name: String, in fromDirectory: Int32, to target: String, in toDirectory: Int32,
                     path: String) throws(AssetPackError) -> Bool {
        while linkat(fromDirectory, name, toDirectory, target, 0) != 0 {
            if errno == EINTR { continue }
            if errno == EXDEV || errno == EPERM || errno == ENOTSUP || errno == EMLINK { return false }
            throw .system("linkat", path: path, errno: errno)
        }
        return true
    }

    /// `symlinkat(2)`.
    static func makeSymlink(_ name: String, in directory: Int32, target: String, path: String) throws(AssetPackError) {
        _ = try retrying("symlinkat", path) { symlinkat(target, directory, name) }
    }

    /// `readlinkat(2)`.
    static func readSymlink(_ name: String, in directory: Int32, path: String) throws(AssetPackError) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = try retrying("readlinkat", path) { readlinkat(directory, name, &buffer, 4096) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `unlinkat(2)`; `directory` removes an (empty) folder. A missing name is not an error.
    static func remove(_ name: String, in directory: Int32, isDirectory: Bool, path: String) throws(AssetPackError) {
        while unlinkat(directory, name, isDirectory ? AT_REMOVEDIR : 0) != 0 {
            if errno == EINTR { continue }
            if errno == ENOENT { return }
            throw .system("unlinkat", path: path, errno: errno)
        }
    }

    /// The names in an open directory, without `.` and `..` (`fdopendir` on a duplicate, `readdir`).
    static func names(in directory: Int32, path: String) throws(AssetPackError) -> [String] {
        let copy = try retrying("dup", path) { dup(directory) }
        guard let stream = fdopendir(copy) else {
            let code = errno
            _ = Glibc_close(copy)
            throw .system("fdopendir", path: path, errno: code)
        }
        defer { _ = closedir(stream) }
        rewinddir(stream)
        var result: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { result.append(name) }
        }
        return result
    }

    /// `flock(2)` with `LOCK_EX`, waiting for other holders.
    static func lockExclusive(_ descriptor: Int32, path: String) throws(AssetPackError) {
        _ = try retrying("flock", path) { flock(descriptor, LOCK_EX) }
    }

    /// `flock(2)` with `LOCK_UN`.
    static func unlock(_ descriptor: Int32) {
        _ = flock(descriptor, LOCK_UN)
    }

    /// Free bytes for an unprivileged writer and the block size, from `fstatvfs(2)`.
    static func freeSpace(_ descriptor: Int32, path: String) throws(AssetPackError) -> (free: UInt64, blockSize: UInt64) {
        var info = statvfs()
        _ = try retrying("fstatvfs", path) { fstatvfs(descriptor, &info) }
        let block = UInt64(info.f_frsize == 0 ? info.f_bsize : info.f_frsize)
        return (UInt64(info.f_bavail) * block, max(block, 512))
    }

    /// `close(2)`; errors are ignored (the descriptor is gone either way).
    static func close(_ descriptor: Int32) {
        _ = Glibc_close(descriptor)
    }

    /// The descriptor standing for the current directory in `…at` calls (`AT_FDCWD`).
    static var currentDirectoryDescriptor: Int32 { AT_FDCWD }

    /// The calling process's id.
    static var processID: Int32 { getpid() }

    /// The current directory, for turning a relative destination into an absolute one.
    static func currentDirectory() -> String? {
        guard let raw = getcwd(nil, 0) else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// The absolute path with every symlink, `.` and `..` resolved (`realpath(3)`), or nil.
    static func canonicalPath(_ path: String) -> String? {
        guard let raw = realpath(path, nil) else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    /// A monotonic clock in seconds.
    static func monotonicSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `call` until it does not fail with EINTR; a -1 result becomes an error naming `name`.
    private static func retrying<Result: BinaryInteger>(_ name: String, _ path: String,
                                                        _ call: () -> Result) throws(AssetPackError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw .system(name, path: path, errno: errno)
        }
    }
}

extension FileSystem.Status {
    fileprivate init(_ info: stat) {
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .file
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = UInt64(info.st_size)
        permissions = UInt32(info.st_mode) & 0o7777
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        links = UInt64(info.st_nlink)
    }
}

#if os(Linux)
/// Calls Glibc has but the Swift module does not import (GNU extensions), looked up once with `dlsym`.
private enum LinuxExtras {
    typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    typealias Syncfs = @convention(c) (Int32) -> Int32
    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32

    static let renameat2: Renameat2? = symbol("renameat2")
    static let syncfs: Syncfs? = symbol("syncfs")
    static let syncFileRange: SyncFileRange? = symbol("sync_file_range")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
#endif

// Module-level shims so the static methods above can share libc's names.
private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func Glibc_pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int {
    pread(fd, buffer, count, offset)
}
private func Glibc_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func Glibc_pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int {
    pwrite(fd, buffer, count, offset)
}
private func Glibc_close(_ fd: Int32) -> Int32 { close(fd) }
