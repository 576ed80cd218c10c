#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported platform")
#endif

// The one file of assetpack that calls the C library: one thin `system_*` shim per call, taking and returning
// exactly what the C function does. Everything above builds on these (see Util.swift for the EINTR and errno
// handling, FaultInjection.swift for the test seam that stands in front of them).

// MARK: - errno, strings, memory

/// The calling thread's `errno`.
internal var system_errno: Int32 {
    get { errno }
    set { errno = newValue }
}

/// `strerror(3)`.
internal func system_strerror(_ code: Int32) -> UnsafeMutablePointer<CChar>? { strerror(code) }

/// `memcmp(3)`.
@usableFromInline internal func system_memcmp(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer, _ count: Int) -> Int32 {
    memcmp(left, right, count)
}

/// `free(3)`, for the strings `getcwd` and `realpath` allocate.
internal func system_free(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

// MARK: - Descriptors

/// `open(2)`.
internal func system_open(_ path: UnsafePointer<CChar>, _ flags: Int32, _ mode: CInterop.Mode) -> Int32 {
    open(path, flags, mode)
}

/// `openat(2)`.
internal func system_openat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32,
                                              _ mode: CInterop.Mode) -> Int32 {
    openat(directory, name, flags, mode)
}

/// `close(2)`.
internal func system_close(_ fd: Int32) -> Int32 { close(fd) }

/// `dup(2)`.
internal func system_dup(_ fd: Int32) -> Int32 { dup(fd) }

/// `read(2)`.
internal func system_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// `pread(2)`.
internal func system_pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int,
                                             _ offset: Int64) -> Int {
    pread(fd, buffer, count, off_t(offset))
}

/// `write(2)`.
internal func system_write(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// `pwrite(2)`.
internal func system_pwrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int,
                                              _ offset: Int64) -> Int {
    pwrite(fd, buffer, count, off_t(offset))
}

/// `lseek(2)`.
internal func system_lseek(_ fd: Int32, _ offset: Int64, _ whence: Int32) -> Int64 { Int64(lseek(fd, off_t(offset), whence)) }

/// `ftruncate(2)`.
internal func system_ftruncate(_ fd: Int32, _ size: Int64) -> Int32 { ftruncate(fd, off_t(size)) }

/// `fsync(2)`.
internal func system_fsync(_ fd: Int32) -> Int32 { fsync(fd) }

#if canImport(Darwin)
/// `fcntl(2)` with a command that takes no argument (`F_FULLFSYNC`).
internal func system_fcntl(_ fd: Int32, _ command: Int32) -> Int32 { fcntl(fd, command) }
#endif

/// `flock(2)`.
internal func system_flock(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

/// `fstatvfs(2)`.
internal func system_fstatvfs(_ fd: Int32, _ info: UnsafeMutablePointer<CInterop.FileSystemStatus>) -> Int32 {
    fstatvfs(fd, info)
}

#if os(Linux) || os(Android)
/// `ioctl(2)` with an `int` argument (`FICLONE`).
internal func system_ioctl(_ fd: Int32, _ request: UInt, _ argument: Int32) -> Int32 { ioctl(fd, request, argument) }
#endif

// MARK: - Status and permissions

/// `fstat(2)`.
internal func system_fstat(_ fd: Int32, _ info: UnsafeMutablePointer<CInterop.Status>) -> Int32 {
    fstat(fd, info)
}

/// `fstatat(2)`.
internal func system_fstatat(_ directory: Int32, _ name: UnsafePointer<CChar>,
                                               _ info: UnsafeMutablePointer<CInterop.Status>, _ flags: Int32) -> Int32 {
    fstatat(directory, name, info, flags)
}

/// `stat(2)`.
internal func system_stat(_ path: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<CInterop.Status>) -> Int32 {
    stat(path, info)
}

/// `lstat(2)`.
internal func system_lstat(_ path: UnsafePointer<CChar>, _ info: UnsafeMutablePointer<CInterop.Status>) -> Int32 {
    lstat(path, info)
}

/// `fchmod(2)`.
internal func system_fchmod(_ fd: Int32, _ mode: CInterop.Mode) -> Int32 { fchmod(fd, mode) }

/// `fchmodat(2)`.
internal func system_fchmodat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ mode: CInterop.Mode, _ flags: Int32) -> Int32 {
    fchmodat(directory, name, mode, flags)
}

/// `chmod(2)`.
internal func system_chmod(_ path: UnsafePointer<CChar>, _ mode: CInterop.Mode) -> Int32 { chmod(path, mode) }

// MARK: - Names

/// `mkdir(2)`.
internal func system_mkdir(_ path: UnsafePointer<CChar>, _ mode: CInterop.Mode) -> Int32 { mkdir(path, mode) }

/// `rmdir(2)`.
internal func system_rmdir(_ path: UnsafePointer<CChar>) -> Int32 { rmdir(path) }

/// `mkdirat(2)`.
internal func system_mkdirat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ mode: CInterop.Mode) -> Int32 {
    mkdirat(directory, name, mode)
}

/// `unlinkat(2)`.
internal func system_unlinkat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    unlinkat(directory, name, flags)
}

/// `renameat(2)`.
internal func system_renameat(_ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32,
                              _ to: UnsafePointer<CChar>) -> Int32 {
    renameat(fromDirectory, from, toDirectory, to)
}

#if canImport(Darwin)
/// `renameatx_np(2)`.
internal func system_renameatx_np(_ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32,
                                  _ to: UnsafePointer<CChar>, _ flags: UInt32) -> Int32 {
    renameatx_np(fromDirectory, from, toDirectory, to, flags)
}
#endif

/// `rename(2)`.
internal func system_rename(_ from: UnsafePointer<CChar>, _ to: UnsafePointer<CChar>) -> Int32 { rename(from, to) }

/// `linkat(2)`.
internal func system_linkat(_ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32,
                            _ to: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    linkat(fromDirectory, from, toDirectory, to, flags)
}

/// `link(2)`.
internal func system_link(_ existing: UnsafePointer<CChar>, _ new: UnsafePointer<CChar>) -> Int32 { link(existing, new) }

/// `symlinkat(2)`.
internal func system_symlinkat(_ target: UnsafePointer<CChar>, _ directory: Int32, _ name: UnsafePointer<CChar>) -> Int32 {
    symlinkat(target, directory, name)
}

/// `readlinkat(2)`.
internal func system_readlinkat(_ directory: Int32, _ name: UnsafePointer<CChar>, _ buffer: UnsafeMutablePointer<CChar>,
                                _ size: Int) -> Int {
    readlinkat(directory, name, buffer, size)
}

/// `mkdtemp(3)`.
internal func system_mkdtemp(_ template: UnsafeMutablePointer<CChar>) -> UnsafeMutablePointer<CChar>? { mkdtemp(template) }

/// `mkstemp(3)`.
internal func system_mkstemp(_ template: UnsafeMutablePointer<CChar>) -> Int32 { mkstemp(template) }

/// `getcwd(3)` with a buffer it allocates (free it with ``system_free(_:)``).
internal func system_getcwd() -> UnsafeMutablePointer<CChar>? { getcwd(nil, 0) }

/// `realpath(3)` with a buffer it allocates (free it with ``system_free(_:)``).
internal func system_realpath(_ path: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>? { realpath(path, nil) }

// MARK: - Directories

/// `fdopendir(3)`.
internal func system_fdopendir(_ fd: Int32) -> CInterop.DirectoryStream? { fdopendir(fd) }

/// `opendir(3)`.
internal func system_opendir(_ path: UnsafePointer<CChar>) -> CInterop.DirectoryStream? { opendir(path) }

/// `rewinddir(3)`.
internal func system_rewinddir(_ stream: CInterop.DirectoryStream) { rewinddir(stream) }

/// `closedir(3)`.
internal func system_closedir(_ stream: CInterop.DirectoryStream) -> Int32 { closedir(stream) }

/// `readdir(3)`, returning the entry's NUL-terminated name (valid until the next call on `stream`), or nil
/// at the end or on an error (told apart by `errno`).
internal func system_readdir(_ stream: CInterop.DirectoryStream) -> UnsafePointer<CChar>? {
    guard let entry = readdir(stream) else { return nil }
    return UnsafeRawPointer(entry).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
        .assumingMemoryBound(to: CChar.self)
}

// MARK: - Process and time

/// `getpid(2)`.
internal func system_getpid() -> Int32 { getpid() }

/// The soft limit of `RLIMIT_NOFILE` (`getrlimit(2)`): descriptors the process may hold; nil when unknown or unlimited.
internal func system_openFileLimit() -> UInt64? {
    var limit = rlimit()
    #if canImport(Glibc)
    let result = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    #else
    let result = getrlimit(RLIMIT_NOFILE, &limit)
    #endif
    guard result == 0, limit.rlim_cur < rlim_t(1) << 40 else { return nil }  // RLIM_INFINITY: all ones, or 2^63 - 1 on Darwin
    return UInt64(limit.rlim_cur)
}

/// `getenv(3)`.
internal func system_getenv(_ name: UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>? { getenv(name) }

/// `isatty(3)`.
internal func system_isatty(_ fd: Int32) -> Int32 { isatty(fd) }

/// `ioctl(2)` `TIOCGWINSZ`: the columns of the terminal `fd` is, or nil when it is none (or says 0).
internal func system_terminalColumns(_ fd: Int32) -> Int? {
    var size = winsize()
    let result = withUnsafeMutablePointer(to: &size) { ioctl(fd, _TIOCGWINSZ, $0) }
    return result == 0 && size.ws_col > 0 ? Int(size.ws_col) : nil
}

/// `kill(2)` of the calling process with `SIGKILL`.
internal func system_killSelf() -> Int32 { kill(getpid(), SIGKILL) }

/// True unless `kill(pid, 0)` says no process `pid` exists (`ESRCH`): one of another user counts as running.
internal func system_processExists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }

/// `signal(3)` setting `SIGXFSZ` to `SIG_IGN`.
internal func system_ignoreSIGXFSZ() { _ = signal(SIGXFSZ, SIG_IGN) }

/// `SIGINT`, the signal of Ctrl-C.
internal var system_SIGINT: Int32 { SIGINT }

/// `signal(3)` setting `SIGINT` to `SIG_IGN` (a dispatch source then receives it).
internal func system_ignoreSIGINT() { _ = signal(SIGINT, SIG_IGN) }

/// `kill(2)` of the calling process with `SIGINT`.
internal func system_interruptSelf() -> Int32 { kill(getpid(), SIGINT) }

/// `exit(3)`.
internal func system_exit(_ code: Int32) -> Never { exit(code) }

/// `time(3)`.
internal func system_time() -> Int64 { Int64(time(nil)) }

/// `clock_gettime(2)` of `CLOCK_MONOTONIC`, in seconds.
internal func system_monotonicSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

// MARK: - Calls looked up at run time

#if os(Linux)
/// Calls Glibc has but the Swift module does not import (GNU extensions), looked up once with `dlsym`; nil
/// where the C library lacks them (Musl, older Glibc).
internal enum LinuxExtras {
    typealias Renameat2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
    typealias Syncfs = @convention(c) (Int32) -> Int32
    typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32

    static let renameat2: Renameat2? = symbol("renameat2")
    static let syncfs: Syncfs? = symbol("syncfs")
    static let syncFileRange: SyncFileRange? = symbol("sync_file_range")
    static let mallopt: Mallopt? = symbol("mallopt")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let handle = dlopen(nil, RTLD_NOW), let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
#endif

// MARK: - Sockets

// The socket calls of the plain-HTTP client (AssetPackRemote's SocketHTTPTransport). Each takes and returns
// what the C function does; StreamSocket.swift and SocketAddress.swift build on them.

// MARK: - Socket constants

internal var _EAGAIN: Int32 { EAGAIN }
internal var _EWOULDBLOCK: Int32 { EWOULDBLOCK }
internal var _EINPROGRESS: Int32 { EINPROGRESS }
internal var _AF_INET: Int32 { AF_INET }
internal var _AF_INET6: Int32 { AF_INET6 }
internal var _POLLIN: Int16 { Int16(POLLIN) }
internal var _POLLOUT: Int16 { Int16(POLLOUT) }

// MARK: - Socket calls

/// `socket(2)` of a TCP stream in `family`, non-blocking and close-on-exec (and, on Darwin, without
/// `SIGPIPE`); -1 and `errno` on failure.
internal func system_streamSocket(_ family: Int32) -> Int32 {
    #if canImport(Darwin)
    let fd = socket(family, SOCK_STREAM, 0)
    guard fd >= 0 else { return fd }
    var yes: Int32 = 1
    _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL, 0) | O_NONBLOCK)
    return fd
    #else
    return socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #endif
}

/// `setsockopt(2)` of `TCP_NODELAY` to 1: small writes (a request head) leave at once.
internal func system_setNoDelay(_ fd: Int32) -> Int32 {
    var yes: Int32 = 1
    return setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
}

/// `connect(2)`.
internal func system_connect(_ fd: Int32, _ address: UnsafeRawPointer, _ length: UInt32) -> Int32 {
    connect(fd, address.assumingMemoryBound(to: sockaddr.self), socklen_t(length))
}

/// `getsockopt(2)` of `SO_ERROR`: the outcome of a non-blocking `connect` (0 when it succeeded).
internal func system_socketError(_ fd: Int32, _ value: UnsafeMutablePointer<Int32>) -> Int32 {
    var length = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, value, &length)
}

/// `poll(2)` of one descriptor for `events`; the events that occurred go to `returned`.
internal func system_poll(_ fd: Int32, _ events: Int16, _ milliseconds: Int32, _ returned: UnsafeMutablePointer<Int16>) -> Int32 {
    var entry = pollfd(fd: fd, events: events, revents: 0)
    let count = poll(&entry, 1, milliseconds)
    returned.pointee = entry.revents
    return count
}

/// `send(2)`, without `SIGPIPE` when the peer is gone (`MSG_NOSIGNAL`; Darwin sockets have `SO_NOSIGPIPE`).
internal func system_send(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
    send(fd, buffer, count, 0)
    #else
    send(fd, buffer, count, Int32(MSG_NOSIGNAL))
    #endif
}

/// `recv(2)`.
internal func system_recv(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    recv(fd, buffer, count, 0)
}

/// `getaddrinfo(3)` of `host` and `port` for TCP, calling `body` with each address found (family, bytes and
/// length of its `sockaddr`) in the order given; returns 0, or the `EAI_*` code.
internal func system_getaddrinfo(_ host: String, _ port: String,
                                 _ body: (_ family: Int32, _ address: UnsafeRawPointer, _ length: UInt32) -> Void) -> Int32 {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Darwin)
    hints.ai_socktype = SOCK_STREAM
    #else
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #endif
    hints.ai_flags = AI_ADDRCONFIG
    var list: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, port, &hints, &list)
    guard status == 0 else { return status }
    defer { freeaddrinfo(list) }
    var next = list
    while let entry = next {
        if let address = entry.pointee.ai_addr { body(entry.pointee.ai_family, address, UInt32(entry.pointee.ai_addrlen)) }
        next = entry.pointee.ai_next
    }
    return 0
}

/// `gai_strerror(3)`: the text of a `getaddrinfo` failure.
internal func system_gaiStrerror(_ code: Int32) -> String { String(cString: gai_strerror(code)) }
