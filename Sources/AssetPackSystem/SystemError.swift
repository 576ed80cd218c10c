/// A failed system call: which call, the errno it set, and the path it was about; each library turns it into
/// its own error with the call and errno kept as the cause. Printed: `PATH: CALL failed: REASON`.
package struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call as the message names it (`"pwrite"`, `"openat"`, `"ioctl(FICLONE)"`).
    package var call: String
    /// What the call set `errno` to.
    package var errno: Errno
    /// The file or folder concerned, as the caller shows it; nil when there is none.
    package var path: String?

    package init(_ call: String, _ errno: Errno, path: String?) {
        self.call = call
        self.errno = errno
        self.path = path
    }

    /// `CALL failed: REASON`, without the path.
    package var message: String { "\(call) failed: \(errno)" }

    /// `PATH: CALL failed: REASON`.
    package var description: String { path.map { "\($0): \(message)" } ?? message }
}
