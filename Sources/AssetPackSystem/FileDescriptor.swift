/// An open file descriptor as a plain value, as in swift-system: it does not own the descriptor (see
/// ``Descriptor`` for that). Each call retries on `EINTR` and throws a ``SystemError`` naming the call and
/// `path` — the file as the caller shows it, evaluated only when the call fails.
package struct FileDescriptor: RawRepresentable, Hashable, Sendable {
    /// The C descriptor.
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// How to open a file; no flags is read-only. `O_CLOEXEC` is always added.
    package struct OpenFlags: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `O_WRONLY`.
        package static var writeOnly: OpenFlags { OpenFlags(rawValue: _O_WRONLY) }
        /// `O_RDWR`.
        package static var readWrite: OpenFlags { OpenFlags(rawValue: _O_RDWR) }
        /// `O_CREAT`.
        package static var create: OpenFlags { OpenFlags(rawValue: _O_CREAT) }
        /// `O_EXCL`: with ``create``, fail when the name exists.
        package static var exclusive: OpenFlags { OpenFlags(rawValue: _O_EXCL) }
        /// `O_TRUNC`.
        package static var truncate: OpenFlags { OpenFlags(rawValue: _O_TRUNC) }
        /// `O_NOFOLLOW`: a symbolic link as the last component fails with ``Errno/tooManySymbolicLinkLevels``.
        package static var noFollow: OpenFlags { OpenFlags(rawValue: _O_NOFOLLOW) }
        /// `O_DIRECTORY`: fail unless it is a directory.
        package static var directory: OpenFlags { OpenFlags(rawValue: _O_DIRECTORY) }
        /// `O_NONBLOCK`: opening a FIFO does not wait for a writer.
        package static var nonBlocking: OpenFlags { OpenFlags(rawValue: _O_NONBLOCK) }
    }

    /// `open(2)` of `path` (links in it are followed unless ``OpenFlags/noFollow`` is given for the last one).
    package static func open(_ path: String, _ flags: OpenFlags = [], permissions: UInt32 = 0o644) throws(SystemError) -> FileDescriptor {
        try opening(path, flags, permissions: permissions).get()
    }

    /// ``open(_:_:permissions:)``'s outcome.
    static func opening(_ path: String, _ flags: OpenFlags, permissions: UInt32 = 0) -> Result<FileDescriptor, SystemError> {
        systemCall("open", path) { system_open(path, flags.rawValue | _O_CLOEXEC, CInterop.Mode(permissions)) }
            .map(FileDescriptor.init(rawValue:))
    }

    // MARK: - Reading and writing

    /// `read(2)` once (a short read is normal for pipes); 0 at the end.
    package func read(into buffer: UnsafeMutableRawBufferPointer, path: @autoclosure () -> String?) throws(SystemError) -> Int {
        try systemCall("read", path()) { system_read(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// `pread(2)` until `buffer` is full or the file ends; returns how many bytes were read.
    package func read(at offset: UInt64, into buffer: UnsafeMutableRawBufferPointer,
                      path: @autoclosure () -> String?) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try systemCall("pread", path()) {
                system_pread(rawValue, buffer.baseAddress! + done, buffer.count - done, Int64(offset) + Int64(done))
            }.get()
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// `write(2)` until every byte is written.
    package func writeAll(_ buffer: UnsafeRawBufferPointer, path: @autoclosure () -> String?) throws(SystemError) {
        var done = 0
        while done < buffer.count {
            let count = try systemCall("write", path()) { system_write(rawValue, buffer.baseAddress! + done, buffer.count - done) }.get()
            guard count > 0 else { throw SystemError("write", .ioError, path: path()) }
            done += count
        }
    }

    /// `write(2)` of a whole array, until every byte is written.
    package func writeAll(_ bytes: [UInt8], path: @autoclosure () -> String?) throws(SystemError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try writeAll(raw, path: path()) } }.get()
    }

    /// `pwrite(2)` until every byte is written at `offset`.
    package func writeAll(_ buffer: UnsafeRawBufferPointer, at offset: UInt64, path: @autoclosure () -> String?) throws(SystemError) {
        var done = 0
        while done < buffer.count {
            let count = try systemCall("pwrite", path()) {
                system_pwrite(rawValue, buffer.baseAddress! + done, buffer.count - done, Int64(offset) + Int64(done))
            }.get()
            guard count > 0 else { throw SystemError("pwrite", .ioError, path: path()) }
            done += count
        }
    }

    /// `ftruncate(2)`.
    package func truncate(to size: UInt64, path: @autoclosure () -> String?) throws(SystemError) {
        _ = try systemCall("ftruncate", path()) { system_ftruncate(rawValue, Int64(size)) }.get()
    }

    /// `lseek(2)` by 0 from the current position: where the next `write` goes.
    package func currentOffset(path: @autoclosure () -> String?) throws(SystemError) -> UInt64 {
        UInt64(try systemCall("lseek", path()) { system_lseek(rawValue, 0, _SEEK_CUR) }.get())
    }

    // MARK: - Status

    /// `fstat(2)`.
    package func status(path: @autoclosure () -> String?) throws(SystemError) -> FileStatus {
        var info = CInterop.Status()
        _ = try systemCall("fstat", path()) { system_fstat(rawValue, &info) }.get()
        return FileStatus(info)
    }

    /// `fchmod(2)`.
    package func setPermissions(_ mode: UInt32, path: @autoclosure () -> String?) throws(SystemError) {
        _ = try systemCall("fchmod", path()) { system_fchmod(rawValue, CInterop.Mode(mode)) }.get()
    }

    /// Free space on the file system holding the descriptor (`fstatvfs(2)`).
    package func freeSpace(path: @autoclosure () -> String?) throws(SystemError) -> FileSystemSpace {
        var info = CInterop.FileSystemStatus()
        _ = try systemCall("fstatvfs", path()) { system_fstatvfs(rawValue, &info) }.get()
        return FileSystemSpace(info)
    }

    // MARK: - Locks

    /// `flock(2)` with `LOCK_EX`, waiting for other holders.
    package func lockExclusive(path: @autoclosure () -> String?) throws(SystemError) {
        _ = try systemCall("flock", path()) { system_flock(rawValue, _LOCK_EX) }.get()
    }

    /// `flock(2)` with `LOCK_UN`.
    package func unlock() {
        _ = system_flock(rawValue, _LOCK_UN)
    }

    // MARK: - Closing

    /// `close(2)`; errors are ignored (the descriptor is gone either way). For descriptors read from.
    package func close() {
        _ = system_close(rawValue)
    }

    /// `close(2)` of a descriptor written to: a failure there can mean lost data, so it throws. Never retried
    /// (after `EINTR` the descriptor is closed already).
    package func closeAfterWriting(path: @autoclosure () -> String?) throws(SystemError) {
        _ = try systemCall("close", path(), retryOnInterrupt: false) { system_close(rawValue) }.get()
    }
}
