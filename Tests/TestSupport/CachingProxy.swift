import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension ExternalTool {
    /// Varnish Cache, a caching HTTP proxy.
    public static let varnish = ExternalTool("varnishd", package: "varnish")
    /// Squid, a caching HTTP proxy (run here as a reverse proxy).
    public static let squid = ExternalTool("squid", package: "squid")
}

/// A real caching proxy on 127.0.0.1 in front of an nginx origin, for one test: what a CDN edge does to ranges
/// and validators, from a config written into a temporary directory.
///
/// - ``Kind/nginxSlice``: nginx's `proxy_cache` with the slice module (1 MiB slices, each cached on its own).
/// - ``Kind/nginxForever``: the same, keeping every object for a year whatever the origin says, and never the
///   pointer: a CDN set up for a bundle built with immutable names.
/// - ``Kind/varnish``: `varnishd -F` with the built-in VCL and a 64 MiB memory store; before an origin that
///   gzips (``Kind/varnishBeforeGzip``), a range asked for while the object still streams in comes back as a 200
///   with the whole body.
/// - ``Kind/squid``: `squid -N` as an accelerator (reverse proxy) with a memory cache; it forwards ranges
///   uncached.
///
/// Varnish and Squid run in the foreground under coreutils `timeout` like ``NginxServer``; the bytes that cross
/// to the client are counted by a plain nginx proxy in front of them (``front``, whose access log has them), the
/// nginx slice cache counts them in its own access log. The origin answers with the cache headers a publisher
/// would set (``originConfig``).
public final class CachingProxy: @unchecked Sendable {
    /// Which proxy.
    public enum Kind: String, CaseIterable, Sendable {
        case nginxSlice = "nginx slice cache"
        /// nginx's slice cache keeping every object for a year whatever the origin says, and passing the pointer
        /// (identity, manifest, signature) on uncached.
        case nginxForever = "nginx caching objects for a year"
        case varnish = "Varnish"
        /// Varnish in front of an origin that compresses what a client accepts compressed, as origins do: Varnish
        /// asks for gzip, and answers a range it cannot cut yet (the object still streaming in, to be unzipped for
        /// a client that takes none) with a 200 and the whole body.
        case varnishBeforeGzip = "Varnish before a gzip origin"
        case squid = "Squid"

        /// The program it needs.
        public var tool: ExternalTool {
            switch self {
            case .nginxSlice, .nginxForever: .nginx
            case .varnish, .varnishBeforeGzip: .varnish
            case .squid: .squid
            }
        }
    }

    /// The server the files are published to.
    public let origin: NginxServer
    /// The server the client talks to; its access log has the bytes that crossed to the client.
    public let front: NginxServer
    private let directory: TemporaryDirectory
    private var process: ChildProcess?

    /// The origin's cache headers: the bundle's pointer (identity, manifest, signature) is revalidated on every
    /// request, everything else may be kept for an hour.
    public static let originConfig = """
        location ~ /assetpack-meta/(identity|manifest\\.json|manifest\\.sig)$ { add_header Cache-Control "no-cache"; }
        location / { add_header Cache-Control "public, max-age=3600"; }
        """

    /// Starts an origin and `kind` in front of it (after ``ExternalTool/require(sourceLocation:)`` for its tool).
    public init(_ kind: Kind, lifetime: Int = 600) async throws {
        try ExternalTool.nginx.require()
        try kind.tool.require()
        directory = try TemporaryDirectory("cache")
        let gzip = kind == .varnishBeforeGzip ? "gzip on; gzip_types application/octet-stream;\n" : ""
        origin = try await NginxServer(serverConfig: gzip + Self.originConfig, lifetime: lifetime)
        switch kind {
        case .nginxSlice, .nginxForever:
            front = try await NginxServer(serverConfig: Self.slice(origin.port, forever: kind == .nginxForever),
                                          httpConfig: "proxy_cache_path \(directory.file("slices")) keys_zone=slices:4m;",
                                          lifetime: lifetime)
            return
        case .varnish, .varnishBeforeGzip:
            let started = try await ForegroundServer.onFreePort("varnishd", lifetime: lifetime, log: { "" }) { [directory, origin] port in
                ["varnishd", "-F", "-a", "127.0.0.1:\(port)", "-b", "127.0.0.1:\(origin.port)", "-n", directory.file("varnish"),
                 "-s", "malloc,64m", "-p", "default_ttl=3600"]
            }
            process = started.0
            front = try await NginxServer(serverConfig: Self.relay(started.1), lifetime: lifetime)
        case .squid:
            // Squid drops root for its `proxy` user, which must write its logs and pid file here.
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.path)
            let started = try await ForegroundServer.onFreePort("squid", lifetime: lifetime, log: { [directory] in
                (try? String(contentsOfFile: directory.file("cache.log"), encoding: .utf8)) ?? ""
            }) { [directory, origin] port in
                try Self.squid(directory.path, port: port, origin: origin.port)
                    .write(toFile: directory.file("squid.conf"), atomically: true, encoding: .utf8)
                return ["squid", "-N", "-f", directory.file("squid.conf")]
            }
            process = started.0
            front = try await NginxServer(serverConfig: Self.relay(started.1), lifetime: lifetime)
        }
    }

    deinit { process?.stop() }

    /// `location /` of an nginx that caches the origin on `port` in slices of 1 MiB, for an hour, or (`forever`)
    /// for a year whatever the origin says, the pointer files never.
    private static func slice(_ port: UInt16, forever: Bool) -> String {
        let pointer = "location ~ /assetpack-meta/(identity|manifest\\.json|manifest\\.sig)$ "
            + "{ proxy_pass http://127.0.0.1:\(port); }"
        return """
        \(forever ? pointer : "")
        location / {
            slice 1m;
            proxy_cache slices;
            proxy_cache_key $uri$slice_range;
            proxy_set_header Range $slice_range;
            proxy_cache_valid 200 206 \(forever ? "1y" : "1h");
            \(forever ? "proxy_ignore_headers Cache-Control Expires;" : "")
            proxy_pass http://127.0.0.1:\(port);
        }
        """
    }

    /// `location /` of an nginx that passes every request on to 127.0.0.1:`port` unchanged and unbuffered.
    public static func relay(_ port: UInt16) -> String {
        "location / { proxy_pass http://127.0.0.1:\(port); proxy_buffering off; proxy_http_version 1.1; }"
    }

    /// Squid as an accelerator for the origin on `origin`, with a memory cache and its files in `dir`.
    private static func squid(_ dir: String, port: UInt16, origin: UInt16) -> String {
        """
        http_port 127.0.0.1:\(port) accel defaultsite=127.0.0.1 no-vhost
        cache_peer 127.0.0.1 parent \(origin) 0 no-query originserver name=origin
        cache_peer_access origin allow all
        http_access allow all
        cache_mem 64 MB
        maximum_object_size_in_memory 16 MB
        pid_filename \(dir)/squid.pid
        access_log stdio:\(dir)/access.log
        cache_log \(dir)/cache.log
        cache_store_log none
        coredump_dir \(dir)
        shutdown_lifetime 0 seconds
        pinger_enable off
        """
    }
}
