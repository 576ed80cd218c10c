/// Getting written data onto the storage medium, per platform.
///
/// | | ``sync(path:)`` (one file or folder) | ``syncFileSystem(path:)`` (everything written) | ``startWriteback()`` |
/// |---|---|---|---|
/// | Linux | `fsync(2)` | `syncfs(2)` | `sync_file_range(SYNC_FILE_RANGE_WRITE)` |
/// | Darwin | `fcntl(F_FULLFSYNC)`, else `fsync` | ``sync(path:)`` of the descriptor | nothing |
/// | others | `fsync(2)` | ``sync(path:)`` of the descriptor | nothing |
extension FileDescriptor {
    /// Flushes the file's (or folder's) data and metadata so that they survive a power loss. On Darwin,
    /// `fsync` only hands the data to the drive's cache, so `F_FULLFSYNC` is asked for first (falling back to
    /// `fsync` on volumes without it: `ENOTSUP`, `EINVAL`).
    package func sync(path: @autoclosure () -> String?) throws(SystemError) {
        #if canImport(Darwin)
        switch systemCall("fcntl(F_FULLFSYNC)", path(), { system_fcntl(rawValue, _F_FULLFSYNC) }) {
        case .success: return
        case .failure(let error) where error.errno == .notSupported || error.errno == .invalidArgument: break
        case .failure(let error): throw error
        }
        #endif
        _ = try systemCall("fsync", path()) { system_fsync(rawValue) }.get()
    }

    /// True when ``syncFileSystem(path:)`` flushes every file written on the file system (Linux's `syncfs`);
    /// elsewhere it flushes only the one descriptor, and files must be flushed one by one.
    package static var canSyncFileSystem: Bool {
        #if os(Linux)
        return LinuxExtras.syncfs != nil
        #else
        return false
        #endif
    }

    /// Flushes everything written on the file system holding the descriptor: `syncfs(2)` on Linux, else
    /// ``sync(path:)`` of this descriptor alone (see ``canSyncFileSystem``).
    package func syncFileSystem(path: @autoclosure () -> String?) throws(SystemError) {
        #if os(Linux)
        if let syncfs = LinuxExtras.syncfs {
            _ = try systemCall("syncfs", path()) { syncfs(rawValue) }.get()
            return
        }
        #endif
        try sync(path: path())
    }

    /// Starts writing the file's dirty pages to disk without waiting (`sync_file_range(2)` with
    /// `SYNC_FILE_RANGE_WRITE` on Linux; nothing elsewhere), so that a later flush finds less to do.
    /// Failures are ignored: this only moves work earlier.
    package func startWriteback() {
        #if os(Linux)
        _ = LinuxExtras.syncFileRange?(rawValue, 0, 0, _SYNC_FILE_RANGE_WRITE)
        #endif
    }

    /// Makes this file share `source`'s data blocks (`ioctl(FICLONE)`: a reflink on Btrfs, XFS,
    /// bcachefs…), so nothing is copied. Returns false when the file system or kernel cannot (then copy
    /// instead); always false outside Linux.
    package func cloneContents(of source: FileDescriptor, path: @autoclosure () -> String?) throws(SystemError) -> Bool {
        #if os(Linux)
        switch systemCall("ioctl(FICLONE)", path(), { system_ioctl(rawValue, _FICLONE, source.rawValue) }) {
        case .success:
            return true
        case .failure(let error) where Self.cloneUnsupported.contains(error.errno):
            return false
        case .failure(let error):
            throw error
        }
        #else
        return false
        #endif
    }

    /// What `FICLONE` fails with when this pair of files cannot share blocks.
    private static let cloneUnsupported: Set<Errno> = [.notSupportedOnSocket, .inappropriateIOCTLForDevice, .improperLink,
                                                        .invalidArgument, .noFunction, .notPermitted, .badFileDescriptor,
                                                        .textFileBusy]
}
