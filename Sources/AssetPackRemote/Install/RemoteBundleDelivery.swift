import AssetPackSystem
import AssetPack
import Crypto
import Foundation

/// A ``RemoteBundle`` as the installer's ``BundleDelivery``: each request is one verified, resumable
/// ``RemoteFetcher`` fetch of `ROOT/<file>` (or a byte range of it), made on the installer's worker thread that
/// asked and streamed into the installer's sink. Every range of one file carries in `If-Range` the entity tag the
/// file first had, so a file that changed on the server meanwhile fails its check, never spliced from two versions.
final class RemoteBundleDelivery: BundleDelivery {
    let bundle: RemoteBundle
    let fetcher: RemoteFetcher
    let progress: FetchProgress?
    /// The install's cancellation: setting it ends the fetches in flight too.
    let cancellation: ExpansionCancellation
    private let tags = EntityTags()

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
        let url = bundle.url(of: request.file)
        let tag = tags[request.file]
        let item = request.range.map { FetchItem.bytes($0, of: url, sha256: nil, etag: tag) }
            ?? .file(url, size: request.length, sha256: nil, etag: tag)
        let result = try fetcher.fetchSynchronously(item, into: sink, progress: progress,
                                                    cancellation: cancellation)
        if let tag = result.etag, isStrongETag(tag) { tags[request.file] = tag }
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
        return ContentHash(hash.finalize()).hex
    }
}

/// The entity tag each stored file had when it was first fetched, by bundle path; safe from any thread.
private final class EntityTags: @unchecked Sendable {
    private let lock = Monitor()
    private var tags: [String: String] = [:]

    subscript(file: String) -> String? {
        get { lock.withLock { tags[file] } }
        set { lock.withLock { if tags[file] == nil { tags[file] = newValue } } }
    }
}
