import AssetPackSystem

/// Idle kept-alive connections of a ``SocketHTTPTransport``, by `host:port`: at most ``limit`` per endpoint
/// (the connections the fetcher uses at once), the most recently used handed out first.
final class ConnectionPool: @unchecked Sendable {
    /// Most idle connections kept per endpoint; more are closed.
    let limit: Int
    private let lock = Monitor()
    /// Guarded by `lock`.
    private var idle: [String: [HTTPConnection]] = [:]
    /// Guarded by `lock`: connections opened so far (for tests and diagnostics).
    private var opened = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// An idle connection to `endpoint` that the server has not closed meanwhile, or nil.
    func checkOut(_ endpoint: String) -> HTTPConnection? {
        while let connection = lock.withLock({ idle[endpoint]?.popLast() }) {
            // Readable while idle: the server closed it (or sent what it should not have). Drop it.
            if !connection.socket.hasPendingInput { return connection }
        }
        return nil
    }

    /// Keeps `connection` for the next request to its endpoint, or closes it when enough are idle.
    func checkIn(_ connection: HTTPConnection) {
        let dropped: HTTPConnection? = lock.withLock {
            if idle[connection.endpoint, default: []].count >= limit { return connection }
            idle[connection.endpoint, default: []].append(connection)
            return nil
        }
        _ = dropped  // released outside the lock: its socket is closed
    }

    /// Counts a newly opened connection.
    func noteOpened() { lock.withLock { opened += 1 } }

    /// Connections opened so far.
    var connectionsOpened: Int { lock.withLock { opened } }
}
