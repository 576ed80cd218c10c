import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ExternalTool {
    /// nginx, the static file server the remote tests download from.
    public static let nginx = ExternalTool("nginx", package: "nginx")
}

/// A real nginx serving a temporary folder on 127.0.0.1, for one test.
///
/// Waits are asynchronous (they never hold one of the few threads that run the tests).
/// Everything lives in its own temporary directory: the config this writes, the served folder (``root``), the
/// pid file, the logs and nginx's temp paths. It runs in the foreground as a single process (`daemon off`,
/// `master_process off`) under coreutils `timeout`, so it is stopped by ``stop()`` / `deinit` and, should the test
/// process die first, ends by itself after `lifetime` (`timeout` sends SIGKILL 2 s after its SIGTERM). Each instance
/// has its own free port, so tests run in parallel.
///
/// The access log has one line per request with the bytes sent (``requests()``), so a test can assert how many
/// bytes crossed the network.
public final class NginxServer: @unchecked Sendable {
    /// One line of the access log.
    public struct Request: Sendable, Equatable {
        /// The request's path (decoded).
        public var path: String
        /// The status nginx answered.
        public var status: Int
        /// Body bytes sent (`$body_bytes_sent`).
        public var bodyBytes: UInt64
        /// All bytes sent, head included (`$bytes_sent`).
        public var bytesSent: UInt64
        /// The `Range` header, or nil.
        public var range: String?
        /// The `If-Range` header, or nil.
        public var ifRange: String?
    }

    /// The folder served at `/`.
    public let root: String
    /// The port on 127.0.0.1.
    public let port: UInt16
    private let directory: TemporaryDirectory
    private var process: ChildProcess?

    /// Starts nginx serving an empty folder; add files with ``write(_:_:modified:)``.
    /// - Parameters:
    ///   - serverConfig: more directives for the `server` block, e.g. `location = /old { return 302 /new; }`.
    ///   - httpConfig: more directives for the `http` block, e.g. a `proxy_cache_path`.
    ///   - lifetime: seconds after which nginx ends even if never stopped.
    public init(serverConfig: String = "", httpConfig: String = "", lifetime: Int = 600) async throws {
        directory = try TemporaryDirectory("nginx")
        root = directory.file("www")
        for folder in ["www", "temp"] {
            try FileManager.default.createDirectory(atPath: directory.file(folder), withIntermediateDirectories: true)
        }
        let directory = directory
        let pidFile = directory.file("nginx.pid")
        let started = try await ForegroundServer.onFreePort("nginx", lifetime: lifetime, log: {
            (try? String(contentsOfFile: directory.file("error.log"), encoding: .utf8)) ?? ""
        }, ready: { FileManager.default.fileExists(atPath: pidFile) }) { port in
            try? FileManager.default.removeItem(atPath: pidFile)
            try Self.config(directory.path, port: port, server: serverConfig, http: httpConfig)
                .write(toFile: directory.file("nginx.conf"), atomically: true, encoding: .utf8)
            return ["nginx", "-e", directory.file("error.log"), "-p", directory.path, "-c", directory.file("nginx.conf")]
        }
        (process, port) = (started.0, started.1)
    }

    deinit { stop() }

    /// `http://127.0.0.1:PORT/` + `path`.
    public func url(_ path: String = "") -> URL { URL(string: "http://127.0.0.1:\(port)/\(path)")! }

    /// Writes a file into the served folder (parents created); `modified` sets its time, which nginx's ETag
    /// includes (`"mtime-size"` in hex): give a replaced file another time so its tag changes.
    public func write(_ path: String, _ bytes: [UInt8], modified: Date? = nil) throws {
        let target = root + "/" + path
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target))
        if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: target) }
    }

    /// The requests logged so far, waiting up to `timeout` for at least `count` (nginx logs a request once its
    /// response is sent, which can be a moment after the client has it).
    public func requests(atLeast count: Int = 0, timeout: TimeInterval = 2) async -> [Request] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let lines = ((try? String(contentsOfFile: directory.file("access.log"), encoding: .utf8)) ?? "")
                .split(separator: "\n").compactMap(Self.parse)
            if lines.count >= count || Date() > deadline { return lines }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Stops nginx (SIGTERM to `timeout`, which passes it on; nginx ends at once) and waits for it to exit.
    public func stop() {
        guard let process else { return }
        self.process = nil
        let nginx = nginxPID
        process.send(SIGTERM)
        // Generous: on a loaded machine nginx can take seconds to see the signal.
        if process.wait(seconds: 15) { return }
        // Still running: nginx did not take the signal. Kill it (still our child's child, so the pid is its),
        // and let `timeout` reap it before it is stopped itself, or nginx would stay a zombie of init's.
        if let nginx { kill(nginx, SIGKILL) }
        if process.wait(seconds: 10) { return }
        process.stop()
    }

    /// Whether a process `pid` runs: false once it has ended, also while it is a zombie nobody reaped yet.
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: end)...].split(separator: " ").first != "Z"
    }

    /// nginx's pid (from its pid file), while it runs.
    public var pid: pid_t? { process == nil ? nil : nginxPID }

    /// The pid nginx wrote to its pid file.
    private var nginxPID: pid_t? {
        (try? String(contentsOfFile: directory.file("nginx.pid"), encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    private static func config(_ dir: String, port: UInt16, server extra: String, http: String) -> String {
        """
        daemon off;
        master_process off;
        worker_processes 1;
        # A periodic wake-up: without it, a SIGTERM that lands while nginx starts is seen only at the next
        # request (the single-process loop checks its flags after an event), and nginx would outlive its test.
        timer_resolution 100ms;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log warn;
        events { worker_connections 128; }
        http {
            log_format bytes '$request_method\\t$uri\\t$status\\t$body_bytes_sent\\t$bytes_sent\\t$http_range\\t$http_if_range';
            access_log \(dir)/access.log bytes;
            client_body_temp_path \(dir)/temp/body;
            proxy_temp_path \(dir)/temp/proxy;
            fastcgi_temp_path \(dir)/temp/fastcgi;
            uwsgi_temp_path \(dir)/temp/uwsgi;
            scgi_temp_path \(dir)/temp/scgi;
            default_type application/octet-stream;
            sendfile on;
            keepalive_timeout 10s;
            \(http)
            server {
                listen 127.0.0.1:\(port);
                root \(dir)/www;
                \(extra)
            }
        }

        """
    }

    private static func parse(_ line: Substring) -> Request? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 7, let status = Int(fields[2]), let body = UInt64(fields[3]), let sent = UInt64(fields[4]) else { return nil }
        func header(_ value: String) -> String? { value == "-" ? nil : unescape(value) }
        return Request(path: unescape(fields[1]), status: status, bodyBytes: body, bytesSent: sent, range: header(fields[5]),
                       ifRange: header(fields[6]))
    }

    /// nginx writes `"`, `\` and bytes outside printable ASCII in log lines as `\xHH`.
    private static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.first {
            if byte == UInt8(ascii: "\\"), rest.count >= 4, rest.dropFirst().first == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: rest.dropFirst(2).prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(4)
            } else {
                bytes.append(byte)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
