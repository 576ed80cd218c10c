import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How the test servers (nginx, Varnish, Squid, SeaweedFS) are run: in the foreground under coreutils
/// `timeout`, so that one never outlives its test by more than its lifetime (`timeout` sends SIGKILL 2 s after
/// its SIGTERM, and passes a SIGTERM it receives on with the same 2 s bound), and waited for asynchronously.
public enum ForegroundServer {
    /// Starts `command` under `timeout --kill-after=2 lifetime` and waits (up to 30 s, asynchronously) until
    /// 127.0.0.1:`port` accepts a connection and `ready()` holds.
    /// - Returns: the running `timeout` process, or nil when the server ended or never listened (it is stopped).
    public static func start(_ command: [String], port: UInt16, lifetime: Int,
                             ready: () -> Bool = { true }) async throws -> ChildProcess? {
        let process = try ChildProcess(["timeout", "--kill-after=2", String(lifetime)] + command)
        // Generous: on a loaded machine a server can take seconds to start.
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline {
            if ready(), let fd = try? LoopbackSocket.connect(port: port) {
                close(fd)
                return process
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        process.stop()
        return nil
    }

    /// Starts `command(port)` on a free port, trying up to five ports (another process may take a free port
    /// before the server binds it); throws with `log()` (the server's error log) when none worked.
    public static func onFreePort(_ name: String, lifetime: Int, log: () -> String, ready: () -> Bool = { true },
                                  _ command: (UInt16) throws -> [String]) async throws -> (ChildProcess, UInt16) {
        for _ in 0..<5 {
            let port = try LoopbackSocket.freePort()
            if let process = try await start(try command(port), port: port, lifetime: lifetime, ready: ready) {
                return (process, port)
            }
        }
        throw NSError(domain: name, code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(log())"])
    }
}
