import AssetPack
import Crypto
import Foundation

/// The state of one item's download between requests: how many of its bytes are in the sink, their running
/// SHA-256, the server the next request goes to and its entity tag; and what one response means for it.
final class Download<Sink: DeliverySink> {
    let item: FetchItem
    let sink: Sink
    let progress: FetchProgress?
    /// Bytes of the item in the sink.
    private(set) var received: UInt64 = 0
    /// Body bytes that crossed the network for this item.
    private(set) var bodyBytes: UInt64 = 0
    /// The resource's entity tag as last seen (or as the item expects).
    private(set) var etag: String?
    /// A change of entity tag seen during this download, for messages.
    private(set) var etagChange: (old: String, new: String)?
    private var hasher = Crypto.SHA256()
    /// The item's servers and the one asked next.
    private(set) var servers: MirrorRotation
    /// The servers (indices into ``MirrorRotation/urls``) whose bytes are in the sink.
    private var sources: Set<Int> = []
    /// The last bytes that were not the item's, which say more than a later 404 of another server.
    private(set) var mismatch: AssetPackError?

    init(item: FetchItem, sink: Sink, progress: FetchProgress?) {
        self.item = item
        self.sink = sink
        self.progress = progress
        etag = item.etag
        servers = MirrorRotation(item)
    }

    var isComplete: Bool { received == item.length }
    var remaining: UInt64 { item.length - received }
    /// The server the next request goes to, for messages.
    var url: String { servers.url.absoluteString }

    /// The bytes still wanted, within the resource.
    var wanted: Range<UInt64> { item.start + received..<item.start + item.length }

    /// The next request: the whole resource when nothing is in yet, no range is wanted and it fits in one
    /// request (``FetchOptions/maxRequestBytes``), else the next at most that many bytes of the item's range,
    /// with `If-Range` when the resource's tag is known and strong.
    func request(_ options: FetchOptions) -> HTTPRequest {
        let most = options.requestSpan
        let ranged = item.range != nil || received > 0 || remaining > most
        let next = wanted.lowerBound..<wanted.lowerBound + min(remaining, most)
        return options.request(servers.url, range: ranged ? next : nil,
                               ifRange: ranged ? etag.flatMap { isStrongETag($0) ? $0 : nil } : nil)
    }

    /// The SHA-256 of the bytes in the sink (call once, when complete; only computed when the item has one
    /// to match).
    func digest() -> ContentHash { ContentHash(hasher.finalize()) }

    /// Forgets what is in the sink: the item starts over from its first byte.
    func restart() throws(AssetPackError) {
        try sink.restart()
        progress?.discard(received)
        received = 0
        sources = []
        hasher = Crypto.SHA256()
    }

    /// After a failure of the current server that may pass: true when the next request goes at once to another
    /// server (``MirrorRotation/failed(progressed:)``). The download goes on there from its first missing byte,
    /// without `If-Range`: each server has entity tags of its own.
    func serverFailed(progressed: Bool) -> Bool {
        let before = servers.current
        let moved = servers.failed(progressed: progressed)
        if servers.current != before { etag = nil }
        return moved
    }

    /// Leaves the current server out of this download (it does not have the item); false when no other is left.
    func leaveServerOut() -> Bool {
        guard servers.leaveOut() else { return false }
        etag = nil
        return true
    }

    /// Starts the item over after bytes that are not the item's (`error` says how): from the next server when all
    /// of them came from the current one, which is left out (it holds another version); else (bytes from several
    /// servers, which cannot tell which one is wrong) from the current one, whole.
    func startOverAfterMismatch(_ error: AssetPackError) throws(AssetPackError) {
        mismatch = error
        if sources.isSubset(of: [servers.current]) { _ = leaveServerOut() }
        try restart()
    }

    /// Notes the resource's tag in a response that starts the item over (or its first response).
    func adopt(_ tag: String?) {
        if let old = etag, let tag, old != tag { etagChange = (old, tag) }
        etag = tag
    }

    /// Takes the next body bytes: `skip` of them are before the wanted ones; at most `limit` are taken.
    /// - Returns: how many were taken.
    func take(_ chunk: [UInt8], skip: inout UInt64, limit: UInt64) throws(AssetPackError) -> UInt64 {
        bodyBytes += UInt64(chunk.count)
        let skipped = Int(min(skip, UInt64(chunk.count)))
        skip -= UInt64(skipped)
        let used = Int(min(UInt64(chunk.count - skipped), limit))
        if used > 0 {
            let failure = chunk.withUnsafeBytes { raw -> AssetPackError? in
                let slice = UnsafeRawBufferPointer(rebasing: raw[skipped..<skipped + used])
                if item.sha256 != nil { hasher.update(bufferPointer: slice) }  // else the sink checks the bytes
                do throws(AssetPackError) {
                    try sink.write(slice)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            received += UInt64(used)
            sources.insert(servers.current)
        }
        progress?.add(received: UInt64(chunk.count), completed: UInt64(used))
        return UInt64(used)
    }
}
