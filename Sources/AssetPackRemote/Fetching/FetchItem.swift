import Foundation

/// One verified download: a whole file or a byte range of one, with the length and SHA-256 it must have.
public struct FetchItem: Sendable, Hashable {
    /// The resource.
    public let url: URL
    /// The bytes wanted within the resource; nil for the whole resource.
    public let range: Range<UInt64>?
    /// How many bytes the download yields: the range's length, or the whole file's size.
    public let length: UInt64
    /// The SHA-256 of exactly those bytes; nil when the sink checks them itself (`DeliverySink.finish()`),
    /// e.g. compressed bytes whose inflated form the manifest hashes.
    public let sha256: ContentHash?
    /// A strong entity tag the resource at ``url`` is expected to have (learned from an earlier request, e.g.
    /// another block of the same file), sent as `If-Range`; nil to learn it from the first response.
    public var etag: String?
    /// The same resource on other servers, tried in order when ``url`` fails (see ``RemoteFetcher``); empty for none.
    public var mirrors: [URL] = []

    /// The whole file at `url`, `size` bytes hashing to `sha256`.
    public static func file(_ url: URL, size: UInt64, sha256: ContentHash?, etag: String? = nil,
                            mirrors: [URL] = []) -> FetchItem {
        FetchItem(url: url, range: nil, length: size, sha256: sha256, etag: etag, mirrors: mirrors)
    }

    /// Bytes `range` of the file at `url`, hashing to `sha256` (a block of a block-indexed archive).
    public static func bytes(_ range: Range<UInt64>, of url: URL, sha256: ContentHash?, etag: String? = nil,
                             mirrors: [URL] = []) -> FetchItem {
        FetchItem(url: url, range: range, length: UInt64(range.count), sha256: sha256, etag: etag, mirrors: mirrors)
    }

    /// Where the item starts within the resource.
    var start: UInt64 { range?.lowerBound ?? 0 }
}

/// What a finished download did.
public struct FetchResult: Sendable, Equatable {
    /// The item, verified.
    public var item: FetchItem
    /// The resource's entity tag in the answer the bytes came from (nil when the server sent none): pass it as
    /// ``FetchItem/etag`` to the other ranges of the same file at ``url`` so that all come from one version of it.
    public var etag: String?
    /// The server the last bytes came from: ``FetchItem/url`` or one of its ``FetchItem/mirrors`` (ask it first
    /// for the next items when it is not the first).
    public var url: URL
    /// Requests made (1 when nothing went wrong).
    public var requests: Int
    /// Body bytes received, including any discarded (skipped in a 200 answer, refetched after a mismatch).
    public var bytesReceived: UInt64
}
