import Foundation

/// The servers one fetch may take its bytes from, in order of preference: the item's URL, then its
/// ``FetchItem/mirrors``; and which of them the next request goes to.
///
/// A server that fails in a way that may pass (connection refused or cut, timeout, 5xx, a short body) hands the
/// next request at once to the next server not yet failed since the last byte arrived; once every server has
/// failed, the fetch waits as its ``RetryPolicy`` says and starts a new round. A server that cannot serve the item
/// (404 or 410, or bytes that are not the item's) is left out for the rest of the fetch, while another remains.
struct MirrorRotation {
    /// The item's URL, then its mirrors.
    let urls: [URL]
    /// The server the next request goes to, an index into ``urls``.
    private(set) var current = 0
    /// Servers left out for the rest of the fetch.
    private var excluded: Set<Int> = []
    /// Servers that failed since the last byte arrived (or the last wait).
    private var failedThisRound: Set<Int> = []

    /// The servers of `item`.
    init(_ item: FetchItem) { urls = [item.url] + item.mirrors }

    /// The URL the next request goes to.
    var url: URL { urls[current] }

    /// After a failure of the current server that may pass (`progressed`: it brought bytes first): true when the
    /// next request goes at once to a server not failed in this round; false when every one did, and a new round
    /// starts at the next server, after the caller's wait.
    mutating func failed(progressed: Bool) -> Bool {
        if progressed { failedThisRound = [] }
        failedThisRound.insert(current)
        if let next = next(where: { !failedThisRound.contains($0) }) {
            current = next
            return true
        }
        failedThisRound = []
        current = next(where: { _ in true }) ?? current
        return false
    }

    /// Leaves the current server out for the rest of the fetch and moves to the next one; false (staying) when
    /// no other is left.
    mutating func leaveOut() -> Bool {
        guard let next = next(where: { _ in true }) else { return false }
        excluded.insert(current)
        current = next
        return true
    }

    /// The first server after the current one, going round, that is not left out and satisfies `condition`.
    private func next(where condition: (Int) -> Bool) -> Int? {
        (1..<max(urls.count, 1)).lazy.map { (current + $0) % urls.count }
            .first { !excluded.contains($0) && condition($0) }
    }
}
