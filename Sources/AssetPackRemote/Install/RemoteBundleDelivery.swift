import AssetPackSystem
import AssetPack
import Crypto
import Foundation

/// A ``RemoteBundle`` as the installer's ``BundleDelivery``: each request is one verified, resumable
/// ``RemoteFetcher`` fetch of `ROOT/<file>` (or a byte range of it), with the same path at the mirrors as its
/// ``FetchItem/mirrors``, made on the installer's worker thread that asked and streamed into the installer's sink.
/// Requests go first to the server that answered the last one (the root until it fails). Every range of one file
/// at one server carries in `If-Range` the entity tag the file first had there, so a file that changed on the
/// server meanwhile fails its check, never spliced from two versions.
final class RemoteBundleDelivery: BundleDelivery {
    let bundle: RemoteBundle
    let fetcher: RemoteFetcher
    let progress: FetchProgress?
    /// The install's cancellation: setting it ends the fetches in flight too.
    let cancellation: ExpansionCancellation
    private let servers = DeliveryServers()

    init(bundle: RemoteBundle, fetcher: RemoteFetcher, progress: FetchProgress?, cancellation: ExpansionCancellation) {
        self.bundle = bundle
        self.fetcher = fetcher
        self.progress = progress
        self.cancellation = cancellation
    }

    var name: String { bundle.root.absoluteString }

    var concurrency: Int { fetcher.options.maxConcurrentRequests }

    /// Small packed files close together are asked for as one range: a gap of up to 64 KiB is cheaper to
    /// download than a request, and a request spans at most ``FetchOptions/maxRequestBytes``, so a retry repeats little.
    var coalescing: DeliveryCoalescing {
        DeliveryCoalescing(maximumGap: 64 << 10, maximumSpan: fetcher.options.maxRequestBytes)
    }

    /// One ranged request per ``FetchOptions/maxRequestBytes`` begun, as the fetcher sends them.
    func requestCount(for request: DeliveryRequest) -> Int { fetcher.options.requestCount(length: request.length) }

    func deliver(_ request: DeliveryRequest, into sink: any DeliverySink) throws(AssetPackError) {
        let urls = [bundle.url(of: request.file)] + bundle.mirrorURLs(of: request.file)
        let first = servers.preferred % urls.count
        let order = urls[first...] + urls[..<first]
        let (url, tag, mirrors) = (order.first!, servers[order.first!], Array(order.dropFirst()))
        let item = request.range.map { FetchItem.bytes($0, of: url, sha256: nil, etag: tag, mirrors: mirrors) }
            ?? .file(url, size: request.length, sha256: nil, etag: tag, mirrors: mirrors)
        let result = try fetcher.fetchSynchronously(item, into: sink, progress: progress,
                                                    cancellation: cancellation)
        if let tag = result.etag, isStrongETag(tag) { servers[result.url] = tag }
        if result.url != url, let answered = urls.firstIndex(of: result.url) { servers.preferred = answered }
    }

    /// swift-crypto's SHA-256 (the CPU's SHA instructions where it has them): every delivered byte is hashed.
    func makeHasher() -> any ContentHasher { HardwareHasher() }
}

/// swift-crypto's SHA-256 as the installer's ``ContentHasher``.
private final class HardwareHasher: ContentHasher {
    private var hash = Crypto.SHA256()

    func update(_ bytes: UnsafeRawBufferPointer) { hash.update(bufferPointer: bytes) }

    func finalizeHex() -> String {
        defer { hash = Crypto.SHA256() }
        return hash.finalize().withUnsafeBytes { lowercaseHex($0) }
    }
}

/// The server requests go to first (an index into the bundle's root and mirrors), and the entity tag each
/// stored file had at each server when it was first fetched there, by URL; safe from any thread.
private final class DeliveryServers: @unchecked Sendable {
    private let lock = Monitor()
    private var tags: [URL: String] = [:]
    private var first = 0

    /// The server asked first: 0 for the root, then the mirrors in order.
    var preferred: Int {
        get { lock.withLock { first } }
        set { lock.withLock { first = newValue } }
    }

    /// The entity tag of the file at `url` when it was first fetched (set once; later values are ignored).
    subscript(url: URL) -> String? {
        get { lock.withLock { tags[url] } }
        set { lock.withLock { if tags[url] == nil { tags[url] = newValue } } }
    }
}
