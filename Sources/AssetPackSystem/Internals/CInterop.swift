#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

// The C library's types and constants, under names the rest of the layer uses. No calls here (those are all
// in Syscalls.swift); only values, which differ between platforms.

/// The C types the shims take.
internal enum CInterop {
    /// `mode_t`.
    typealias Mode = mode_t
    /// `struct stat`.
    typealias Status = stat
    /// `struct statvfs`.
    typealias FileSystemStatus = statvfs
    #if canImport(Darwin)
    /// What `opendir(3)` returns.
    typealias DirectoryStream = UnsafeMutablePointer<DIR>
    #else
    /// What `opendir(3)` returns.
    typealias DirectoryStream = OpaquePointer
    #endif
}

// MARK: - errno values

internal var _EPERM: Int32 { EPERM }
internal var _ENOENT: Int32 { ENOENT }
internal var _EINTR: Int32 { EINTR }
internal var _EIO: Int32 { EIO }
internal var _EBADF: Int32 { EBADF }
internal var _EEXIST: Int32 { EEXIST }
internal var _EXDEV: Int32 { EXDEV }
internal var _ENOTDIR: Int32 { ENOTDIR }
internal var _EINVAL: Int32 { EINVAL }
internal var _ENOTTY: Int32 { ENOTTY }
internal var _ETXTBSY: Int32 { ETXTBSY }
internal var _ENOSPC: Int32 { ENOSPC }
internal var _EROFS: Int32 { EROFS }
internal var _EMLINK: Int32 { EMLINK }
internal var _ENOSYS: Int32 { ENOSYS }
internal var _ELOOP: Int32 { ELOOP }
internal var _ENOTSUP: Int32 { ENOTSUP }
internal var _EOPNOTSUPP: Int32 { EOPNOTSUPP }
internal var _EACCES: Int32 { EACCES }
internal var _EISDIR: Int32 { EISDIR }
internal var _EFBIG: Int32 { EFBIG }
internal var _EMFILE: Int32 { EMFILE }
internal var _ENFILE: Int32 { ENFILE }
internal var _ENAMETOOLONG: Int32 { ENAMETOOLONG }
internal var _ENOTEMPTY: Int32 { ENOTEMPTY }

// MARK: - Flags

internal var _O_WRONLY: Int32 { O_WRONLY }
internal var _O_RDWR: Int32 { O_RDWR }
internal var _O_CREAT: Int32 { O_CREAT }
internal var _O_EXCL: Int32 { O_EXCL }
internal var _O_TRUNC: Int32 { O_TRUNC }
internal var _O_NOFOLLOW: Int32 { O_NOFOLLOW }
internal var _O_DIRECTORY: Int32 { O_DIRECTORY }
internal var _O_NONBLOCK: Int32 { O_NONBLOCK }
internal var _O_CLOEXEC: Int32 { O_CLOEXEC }
#if os(Linux) || os(Android)
/// `O_NOATIME`: reading does not update the access time (allowed on one's own files only, else `EPERM`). The
/// C headers define it only with `_GNU_SOURCE`; its value is the same on every architecture Swift runs Linux
/// and Android on (x86, x86-64, ARM, ARM64, RISC-V).
internal var _O_NOATIME: Int32 { 0o1_000_000 }
#else
internal var _O_NOATIME: Int32 { 0 }
#endif
internal var _AT_SYMLINK_NOFOLLOW: Int32 { AT_SYMLINK_NOFOLLOW }
internal var _AT_REMOVEDIR: Int32 { AT_REMOVEDIR }
internal var _LOCK_EX: Int32 { LOCK_EX }
internal var _LOCK_UN: Int32 { LOCK_UN }
internal var _SEEK_CUR: Int32 { SEEK_CUR }
/// `ioctl`'s `TIOCGWINSZ`: `_IOR('t', 104, struct winsize)` on Darwin, `0x5413` on Linux.
#if canImport(Darwin)
internal var _TIOCGWINSZ: UInt { 0x4008_7468 }
#else
internal var _TIOCGWINSZ: UInt { 0x5413 }
#endif
#if canImport(Darwin)
internal var _F_FULLFSYNC: Int32 { F_FULLFSYNC }
internal var _RENAME_SWAP: UInt32 { UInt32(RENAME_SWAP) }
#endif
#if os(Linux)
/// `renameat2`'s `RENAME_EXCHANGE`.
internal var _RENAME_EXCHANGE: UInt32 { 2 }
/// `sync_file_range`'s `SYNC_FILE_RANGE_WRITE`.
internal var _SYNC_FILE_RANGE_WRITE: UInt32 { 2 }
/// `ioctl`'s `FICLONE`: `_IOW(0x94, 9, int)`.
internal var _FICLONE: UInt { 0x4004_9409 }
/// `mallopt`'s `M_MMAP_THRESHOLD`.
internal var _M_MMAP_THRESHOLD: Int32 { -3 }
/// `mallopt`'s `M_ARENA_MAX`.
internal var _M_ARENA_MAX: Int32 { -8 }
#endif

// MARK: - Struct fields

extension FileStatus {
    /// The status `stat(2)` filled in.
    init(_ info: CInterop.Status) {
        let mode = UInt32(info.st_mode)
        let kind: FileKind = switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): .file
        case UInt32(S_IFDIR): .directory
        case UInt32(S_IFLNK): .symlink
        case UInt32(S_IFIFO): .fifo
        case UInt32(S_IFSOCK): .socket
        case UInt32(S_IFCHR), UInt32(S_IFBLK): .device
        default: .other
        }
        #if canImport(Darwin)
        let modified = Int64(info.st_mtimespec.tv_sec), nanoseconds = Int64(info.st_mtimespec.tv_nsec)
        #else
        let modified = Int64(info.st_mtim.tv_sec), nanoseconds = Int64(info.st_mtim.tv_nsec)
        #endif
        self.init(kind: kind, size: UInt64(info.st_size), permissions: mode & 0o7777, device: UInt64(info.st_dev),
                  inode: UInt64(info.st_ino), modified: modified, modifiedNanoseconds: modified &* 1_000_000_000 &+ nanoseconds,
                  links: UInt64(info.st_nlink))
    }
}

extension FileSystemSpace {
    /// The space `statvfs(2)` reports for an unprivileged writer.
    init(_ info: CInterop.FileSystemStatus) {
        let block = UInt64(info.f_frsize == 0 ? info.f_bsize : info.f_frsize)
        self.init(free: UInt64(info.f_bavail) * block, blockSize: max(block, 512))
    }
}
