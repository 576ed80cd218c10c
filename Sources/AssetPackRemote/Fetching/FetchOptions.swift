import AssetPack
import Foundation

/// How a ``RemoteFetcher`` talks to servers.
public struct FetchOptions: Sendable {
    /// Whether plain `http://` URLs (and redirects to them) are allowed. Off by default: only `https://`.
    /// Turn it on for loopback tests and development servers; content is still verified by its SHA-256.
    public var allowsPlainHTTP = false
    /// How long to wait for a response's head, and then for each next bytes of its body.
    public var timeout: Duration = .seconds(30)
    /// Most requests in flight at once, across every fetch of this fetcher.
    public var maxConcurrentRequests = 4
    /// Most bytes one request asks for (at least 64 KiB): a longer file or range is fetched as consecutive
    /// `Range` requests. URLSession on Linux cannot pause a transfer, so a larger request could outrun the
    /// writer, overflow ``URLSessionTransport/bufferLimit`` and be fetched twice; smaller ones bound memory too.
    public var maxRequestBytes: UInt64 = 2 << 20
    /// When and how often to try again.
    public var retry = RetryPolicy()
    /// Most bytes per second received, across every request of this fetcher (a cap beside
    /// ``maxConcurrentRequests``, like curl's `--limit-rate`); nil for no cap.
    public var maxBytesPerSecond: UInt64?
    /// What the app is asked before an install fetches more file data than it allows; nil to ask nothing.
    public var consent: DownloadConsent?
    /// Local folders laid out as the bundle's tree (an older copy of it, a download made elsewhere) whose files
    /// lend the chunks of a large file at the same path instead of fetching them, found by content at any offset;
    /// read, never written. The destination's installed tree is always searched first.
    public var seedFolders: [String] = []
    /// On Apple platforms, whether requests may use a network the system deems expensive (cellular, a personal
    /// hotspot): `URLRequest.allowsExpensiveNetworkAccess`. Ignored elsewhere (see `ServerDelivery`).
    public var allowsExpensiveNetworkAccess = true
    /// On Apple platforms, whether requests may use a network in Low Data Mode:
    /// `URLRequest.allowsConstrainedNetworkAccess`. Ignored elsewhere (see `ServerDelivery`).
    public var allowsConstrainedNetworkAccess = true

    /// The most bytes one request asks for: ``maxRequestBytes``, at least 64 KiB.
    var requestSpan: UInt64 { max(maxRequestBytes, 64 << 10) }

    /// A request for `url` (bytes `range` of it, `If-Range: ifRange`) as these options want it made.
    func request(_ url: URL, range: Range<UInt64>? = nil, ifRange: String? = nil) -> HTTPRequest {
        var request = HTTPRequest(url: url, range: range, ifRange: ifRange, timeout: timeout, allowsPlainHTTP: allowsPlainHTTP)
        request.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
        request.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
        return request
    }

    /// The requests a download of `length` bytes takes when nothing fails: one per ``requestSpan`` begun.
    func requestCount(length: UInt64) -> Int { Int((length + requestSpan - 1) / requestSpan) }

    /// The defaults: https only, 30 s timeout, 4 requests at once of at most 2 MiB each, ``RetryPolicy/init()``.
    public init() {}

    /// Throws `AssetPackError/Code/invalidArgument` unless `url` is `https://host/…`, or `http://host/…`
    /// when ``allowsPlainHTTP``.
    public func check(_ url: URL) throws(AssetPackError) {
        let scheme = url.scheme?.lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw AssetPackError(.invalidArgument, "only https:// URLs can be fetched", path: url.absoluteString)
        }
        guard let host = url.host, !host.isEmpty else {
            throw AssetPackError(.invalidArgument, "the URL has no host", path: url.absoluteString)
        }
        if scheme == "http", !allowsPlainHTTP {
            let reason = "plain http:// is not allowed: use https://, or on a trusted network allow plain HTTP (--allow-http, "
                + "FetchOptions.allowsPlainHTTP)"
            throw AssetPackError(.invalidArgument, reason, path: url.absoluteString)
        }
    }
}

/// The app's say before an install downloads more than ``threshold`` bytes of file data: the install works out
/// what it will fetch (`RemoteBundle.dryRun`) once it has the manifest and before any file data, and calls
/// ``allows`` with that plan when its `bytesToFetch` is above the threshold. A refusal ends the install with
/// `AssetPackError/Code/declined`: nothing written, the installed tree as it was.
public struct DownloadConsent: Sendable {
    /// Bytes of file data an install may fetch without asking.
    public var threshold: UInt64
    /// Called on the install's thread (it may block, e.g. to wait for the person's answer) with the plan; true
    /// to go on.
    public var allows: @Sendable (InstallPreview) -> Bool

    /// Asks `allows` before an install fetches more than `threshold` bytes.
    public init(above threshold: UInt64, allows: @escaping @Sendable (InstallPreview) -> Bool) {
        (self.threshold, self.allows) = (threshold, allows)
    }

    /// Refuses anything above `bytes` without asking (`assetpack expand --max-download`).
    public static func refuse(above bytes: UInt64) -> DownloadConsent { DownloadConsent(above: bytes) { _ in false } }
}

/// Retries with exponential backoff, bounded in count and in time.
///
/// Each delay is drawn between half and all of the current one, so clients do not retry in step; a request
/// that brought some bytes resets the count, so a download resumes as often as it progresses. Content that
/// does not hash to the expected SHA-256 is fetched again at most `maxMismatches` times, then refused.
public struct RetryPolicy: Sendable {
    /// Failures in a row (without any byte received) before giving up.
    public var maxAttempts = 5
    /// The delay after the first failure.
    public var initialDelay: Duration = .milliseconds(250)
    /// The longest delay between two tries.
    public var maxDelay: Duration = .seconds(8)
    /// No new try starts after this much time since the fetch began.
    public var maxDuration: Duration = .seconds(120)
    /// Complete downloads that did not match their hash, fetched again before giving up.
    public var maxMismatches = 2

    /// 5 tries in a row, 250 ms doubling to 8 s, 2 minutes in all, 2 refetches after a mismatch.
    public init() {}

    /// A policy with the given bounds.
    public init(maxAttempts: Int, initialDelay: Duration, maxDelay: Duration, maxDuration: Duration, maxMismatches: Int = 2) {
        self.maxAttempts = maxAttempts
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.maxDuration = maxDuration
        self.maxMismatches = maxMismatches
    }

    /// The delay before try `failures + 1`, after `failures` (≥ 1) failures in a row: `initialDelay × 2^(failures−1)`,
    /// at most `maxDelay`, scaled by `jitter` (0.5…1).
    public func delay(afterFailures failures: Int, jitter: Double = 1) -> Duration {
        let doublings = min(max(failures - 1, 0), 30)
        let full = min(initialDelay * (1 << doublings), maxDelay)
        return full * min(max(jitter, 0.5), 1)
    }
}
