import AssetPackSystem
import AssetPack
import Crypto
import Foundation

/// A ``RemoteBundle`` as the installer's ``BundleDelivery``: each request is one verified, resumable
/// ``RemoteFetcher`` fetch of `ROOT/<file>` (a byte range of it for a packed entry or a block), made on the
/// installer's worker thread that asked (it blocks on the socket; no task, no hop to another thread) and
/// streamed into the installer's sink, which inflates and checks the bytes; a sink that rejects them (a byte
/// flipped on the way) makes the fetcher fetch them again.
///
/// Every range of one stored file is asked for with `If-Range` carrying the entity tag that file had when it
/// was first fetched, so blocks of a file that changed on the server meanwhile come back whole (200) from the
/// new version, fail their SHA-256, and end in a `AssetPackError/Code/verification` error: never a file
/// spliced from two versions.
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

    /// Small packed files close together are asked for as one range: each HTTP request costs about a
    /// millisecond of CPU on its own (URLSession on Linux), so a first install of thousands of small files asked
    /// one range each spends more on requests than on bytes. A gap of up to 64 KiB is cheaper to download than a
    /// request; a request spans at most ``FetchOptions/maxRequestBytes``, so a retry repeats little and several
    /// still run at once. A whole pack archive needed is then one request, or a few.
    var coalescing: DeliveryCoalescing {
        DeliveryCoalescing(maximumGap: 64 << 10, maximumSpan: fetcher.options.maxRequestBytes)
    }

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
