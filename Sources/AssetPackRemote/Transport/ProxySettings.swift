/// The proxy variables of the environment as curl (and so URLSession on Linux) reads them: `http_proxy`,
/// `HTTP_PROXY`, `all_proxy`, `ALL_PROXY`, and the exceptions in `no_proxy` / `NO_PROXY`.
///
/// ``RoutingTransport`` only asks whether a proxy would be used for a host: when one would, the request goes
/// through URLSession, which applies it; the socket client never speaks to a proxy.
public struct ProxySettings: Sendable, Equatable {
    /// The proxy for `http://` URLs, when one is set.
    public var proxy: String?
    /// The `no_proxy` entries: host names or domain suffixes (a leading `.` optional), or `*` for every host.
    public var exceptions: [String]

    /// The settings in `environment` (the process's environment by default).
    public init(environment: [String: String]) {
        let names = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
        proxy = names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        exceptions = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { String($0).trimmingWhitespace.lowercased() }.filter { !$0.isEmpty }
    }

    /// Whether a request to `host` would go through the proxy.
    public func isProxied(_ host: String) -> Bool {
        guard proxy != nil else { return false }
        let host = host.lowercased()
        return !exceptions.contains { entry in
            if entry == "*" { return true }
            let domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            return host == domain || host.hasSuffix("." + domain)
        }
    }
}
