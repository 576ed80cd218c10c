#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the zip library touches libc for file I/O. Every call retries on EINTR and reports
/// failure as a ``ZipError`` with code ``ZipError/Code/io`` naming the call, the path and errno.
enum Syscall {
    /// The calling thread's errno.
    static var lastErrno: Int32 { errno }

    /// `open(2)` with close-on-exec.
    static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws(ZipError) -> Int32 {
        while true {
            let fd = path.withCString { systemOpen($0, flags | O_CLOEXEC, mode) }
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw .system("open", path: path, errno: errno)
        }
    }

    /// `close(2)`; errors are ignored (the descriptor is gone either way).
    static func close(_ fd: Int32) {
        _ = systemClose(fd)
    }

    /// `fstat(2)`: the file's size.
    static func fileSize(_ fd: Int32, path: String?) throws(ZipError) -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system("fstat", path: path, errno: errno) }
        return UInt64(info.st_size)
    }

    /// `pread(2)` until `buffer` is full or the file ends; returns how many bytes were read.
    static func pread(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64,
                      path: String?) throws(ZipError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = systemPread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count > 0 { done += count; continue }
            if count == 0 { break }
            if errno == EINTR { continue }
            throw .system("pread", path: path, errno: errno)
        }
        return done
    }

    /// `read(2)` once (a short read is normal for pipes); 0 at end of file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String?) throws(ZipError) -> Int {
        while true {
            let count = systemRead(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw .system("read", path: path, errno: errno)
        }
    }

    /// `write(2)` until every byte is written.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String?) throws(ZipError) {
        var done = 0
        while done < buffer.count {
            let count = systemWrite(fd, buffer.baseAddress! + done, buffer.count - done)
            if count > 0 { done += count; continue }
            if count < 0 && errno == EINTR { continue }
            throw .system("write", path: path, errno: count < 0 ? errno : EIO)
        }
    }

    /// `pwrite(2)` until every byte is written.
    static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: UInt64,
                          path: String?) throws(ZipError) {
        var done = 0
        while done < buffer.count {
            let count = systemPwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if count > 0 { done += count; continue }
            if count < 0 && errno == EINTR { continue }
            throw .system("pwrite", path: path, errno: count < 0 ? errno : EIO)
        }
    }

    /// `time(3)`: the current Unix time in seconds.
    static func currentTime() -> Int64 { Int64(systemTime()) }

    /// `fsync(2)`.
    static func fsync(_ fd: Int32, path: String?) throws(ZipError) {
        while systemFsync(fd) != 0 {
            if errno == EINTR { continue }
            throw .system("fsync", path: path, errno: errno)
        }
    }
}

// Module-level shims so the static methods above can share libc's names.
private func systemOpen(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemPread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int, _ offset: off_t) -> Int { pread(fd, buffer, count, offset) }
private func systemPwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ offset: off_t) -> Int { pwrite(fd, buffer, count, offset) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemTime() -> time_t { time(nil) }
