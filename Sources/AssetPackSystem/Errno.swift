/// An error number a system call set (`errno`), as swift-system's `Errno` does it: an open set of values,
/// with a named constant for each code assetpack looks at, so code reads `.noSpace` rather than `28`
/// (whose number differs between platforms anyway). Printed, it is the C library's text for it.
package struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The C value.
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`, right after a call failed.
    package static var current: Errno { Errno(rawValue: system_errno) }

    /// What `strerror(3)` says, e.g. "No space left on device".
    package var description: String { system_strerror(rawValue).map { String(cString: $0) } ?? "error \(rawValue)" }

    /// `EPERM`: the operation is not permitted (also: hard links refused by the file system).
    package static var notPermitted: Errno { Errno(rawValue: _EPERM) }
    /// `ENOENT`: no such file or directory.
    package static var noSuchFileOrDirectory: Errno { Errno(rawValue: _ENOENT) }
    /// `EINTR`: a signal interrupted the call; retried by ``valueOrErrno(retryOnInterrupt:_:)``.
    package static var interrupted: Errno { Errno(rawValue: _EINTR) }
    /// `EIO`: the device failed to read or write.
    package static var ioError: Errno { Errno(rawValue: _EIO) }
    /// `EBADF`: not an open descriptor (or not open the right way).
    package static var badFileDescriptor: Errno { Errno(rawValue: _EBADF) }
    /// `EEXIST`: the name exists already.
    package static var fileExists: Errno { Errno(rawValue: _EEXIST) }
    /// `EXDEV`: the two names are on different file systems.
    package static var improperLink: Errno { Errno(rawValue: _EXDEV) }
    /// `ENOTDIR`: a component that should be a directory is not.
    package static var notDirectory: Errno { Errno(rawValue: _ENOTDIR) }
    /// `EINVAL`: an argument the call (or the file system) does not accept.
    package static var invalidArgument: Errno { Errno(rawValue: _EINVAL) }
    /// `ENOTTY`: the `ioctl` does not apply to this descriptor.
    package static var inappropriateIOCTLForDevice: Errno { Errno(rawValue: _ENOTTY) }
    /// `ETXTBSY`: the file is being executed or swapped to.
    package static var textFileBusy: Errno { Errno(rawValue: _ETXTBSY) }
    /// `ENOSPC`: no space left on the device.
    package static var noSpace: Errno { Errno(rawValue: _ENOSPC) }
    /// `EROFS`: the file system is read-only.
    package static var readOnlyFileSystem: Errno { Errno(rawValue: _EROFS) }
    /// `EMLINK`: too many hard links to the file.
    package static var tooManyLinks: Errno { Errno(rawValue: _EMLINK) }
    /// `ENOSYS`: the kernel does not have this call.
    package static var noFunction: Errno { Errno(rawValue: _ENOSYS) }
    /// `ELOOP`: a symbolic link where none is followed (`O_NOFOLLOW`), or too many links in a path.
    package static var tooManySymbolicLinkLevels: Errno { Errno(rawValue: _ELOOP) }
    /// `ENOTSUP`: not supported (by this file system).
    package static var notSupported: Errno { Errno(rawValue: _ENOTSUP) }
    /// `EOPNOTSUPP`: the operation is not supported (the same value as ``notSupported`` on Linux).
    package static var notSupportedOnSocket: Errno { Errno(rawValue: _EOPNOTSUPP) }
    /// `EACCES`: the permission bits (or a security policy) refuse the access.
    package static var permissionDenied: Errno { Errno(rawValue: _EACCES) }
    /// `EISDIR`: a file was expected, the name is a directory.
    package static var isDirectory: Errno { Errno(rawValue: _EISDIR) }
    /// `EFBIG`: the file would grow past the file-size limit (`ulimit -f`) or the file system's maximum.
    package static var fileTooLarge: Errno { Errno(rawValue: _EFBIG) }
    /// `EMFILE`: the process has too many open descriptors.
    package static var tooManyOpenFiles: Errno { Errno(rawValue: _EMFILE) }
    /// `ENFILE`: the system has too many open files.
    package static var tooManyOpenFilesInSystem: Errno { Errno(rawValue: _ENFILE) }
    /// `ENAMETOOLONG`: a name or the whole path is too long.
    package static var nameTooLong: Errno { Errno(rawValue: _ENAMETOOLONG) }
    /// `ENOTEMPTY`: the directory is not empty.
    package static var directoryNotEmpty: Errno { Errno(rawValue: _ENOTEMPTY) }
}
