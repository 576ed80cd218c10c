import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process for a test server, started with `posix_spawnp` with no blocked signals and default signal
/// handling, so that SIGTERM stops it. (Foundation's `Process` passes on the spawning thread's signal mask,
/// and the threads that run tests block SIGTERM: such a child ignores a polite stop.) Its output goes to
/// /dev/null, and it inherits no other descriptor; it is reaped here, not by Foundation.
public final class ChildProcess: @unchecked Sendable {
    /// The child's pid.
    public let pid: pid_t
    private let lock = NSLock()
    private var exited = false

    /// Starts `arguments[0]` (looked up on PATH) with `arguments`.
    public init(_ arguments: [String]) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        // Nothing else of this process reaches the child. Tests run in parallel: a pipe another test just
        // made for a short command (Foundation's `Pipe` is not close-on-exec) would otherwise stay open in
        // this long-lived server, and that test would wait for its end of file until the server stopped.
        _ = Self.closeFrom?(&actions, 3)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, environ)
        guard result == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(result),
                          userInfo: [NSLocalizedDescriptionKey: "cannot start \(arguments[0]): \(String(cString: strerror(result)))"])
        }
        pid = child
    }

    deinit { stop() }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc module does
    /// not declare; nil where the C library lacks it.
    private static let closeFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: AddCloseFrom.self)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// Whether it is still running (reaps it when it has ended).
    public var isRunning: Bool {
        lock.withLock {
            guard !exited else { return false }
            var status: Int32 = 0
            exited = waitpid(pid, &status, WNOHANG) == pid
            return !exited
        }
    }

    /// Sends `signal` unless it has ended.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Waits up to `seconds` for it to end; true when it has.
    @discardableResult
    public func wait(seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    /// SIGTERM, then SIGKILL if it has not ended within `grace` seconds; returns once it has ended. (The
    /// default outlasts `timeout --kill-after=2`, so a `timeout` child gets to kill its own child first.)
    public func stop(grace: TimeInterval = 5) {
        send(SIGTERM)
        if wait(seconds: grace) { return }
        send(SIGKILL)
        wait(seconds: 10)
    }
}
