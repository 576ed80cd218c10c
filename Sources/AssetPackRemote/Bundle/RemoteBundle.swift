import AssetPack
import Foundation

/// A bundle folder served over HTTP, as `assetpack build` writes it: its identity, manifest and signature in
/// the reserved folder, and the files and archives the manifest names, each at `ROOT/<bundle-relative path>`;
/// optionally on several servers (``mirrors``).
///
/// **Mirrors.** The identity, manifest and signature come from one server, checked as from one: ``root``, or
/// when it fails or lacks the bundle, the first mirror that answers. File data comes from any of them: the server
/// that gave the pointer first, and when a server fails (connection refused or cut mid-transfer, timeout, 5xx,
/// a 404 of a file the manifest lists), the next, from the byte where the transfer stopped, as
/// ``RemoteFetcher`` says; later requests go first to the server that answered. Every byte is checked against
/// the manifest the pointer server signed, so a mirror that holds another version of a file ends in that file
/// failing its check on that mirror and the next mirror being asked, never in a mixed tree; when no server has the
/// bytes, the install ends in one `verification` error and the installed tree stays as it was.
public struct RemoteBundle: Sendable {
    /// The bundle folder's URL, e.g. `https://cdn.example.com/app.bundle`.
    public let root: URL
    /// The same bundle folder on other servers, asked in order when ``root`` fails (see above); empty for none.
    public var mirrors: [URL]
    /// The most bytes accepted for a manifest: by default the most a manifest may have
    /// (`BundleManifest/maxEncodedSize`, about 1.5 million files). It is spooled into a file, never held in memory.
    public var manifestLimit = UInt64(BundleManifest.maxEncodedSize)

    /// The bundle at `root`, and at `mirrors` when it fails.
    public init(_ root: URL, mirrors: [URL] = []) {
        self.root = root
        self.mirrors = mirrors
    }

    /// The URL of a bundle-relative path (`/`-separated) at ``root``; each component is percent-encoded as needed.
    public func url(of path: String) -> URL { Self.url(of: path, at: root) }

    /// The URLs of a bundle-relative path at ``mirrors``, in order.
    func mirrorURLs(of path: String) -> [URL] { mirrors.map { Self.url(of: path, at: $0) } }

    /// The URL of a bundle-relative path at the bundle folder `base`.
    private static func url(of path: String, at base: URL) -> URL {
        path.split(separator: "/").reduce(base) { $0.appendingPathComponent(String($1), isDirectory: false) }
    }

    /// Fetches the bundle's identity (one small request): compare it with the installed identity to learn
    /// whether anything changed. Not verified: it only decides whether to fetch the manifest, which is.
    public func fetchIdentity(with fetcher: RemoteFetcher) async throws(AssetPackError) -> String {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            try pointer(with: fetcher, cancellation).identity
        }
    }

    /// ``fetchIdentity(with:)`` on the calling thread, which blocks meanwhile, from ``root`` or the first mirror
    /// that answers; with the bundle as seen from that server (its ``root``, the others its ``mirrors``), from
    /// which the manifest and signature are then fetched. `progress` counts its bytes.
    func pointer(with fetcher: RemoteFetcher, _ cancellation: ExpansionCancellation,
                 progress: FetchProgress? = nil) throws(AssetPackError) -> (identity: String, server: RemoteBundle) {
        let memory = MemorySink(limit: 256)
        let url = url(of: BundleManifest.identityPath)
        let served = try fetcher.fetchWhole(url, mirrors: mirrorURLs(of: BundleManifest.identityPath), limit: 256,
                                            into: memory, cancellation, progress: progress)
        let identity = String(decoding: memory.bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard ContentHash(hex: identity) != nil else {
            throw AssetPackError(.manifest, "not a bundle identity (64 hex digits expected)",
                                 path: served.absoluteString)
        }
        let bases = [root] + mirrors
        let base = ([url] + mirrorURLs(of: BundleManifest.identityPath)).firstIndex(of: served) ?? 0
        var server = RemoteBundle(bases[base], mirrors: bases.indices.filter { $0 != base }.map { bases[$0] })
        server.manifestLimit = manifestLimit
        return (identity.lowercased(), server)
    }

    /// Fetches the manifest (and its signature, when `trust` requires one) from ``root`` and checks it (an install
    /// takes them from the server that gave the identity: ``root`` or a mirror).
    ///
    /// The manifest is spooled into an unlinked temporary file as it arrives (``VerifiedManifest/file``). One
    /// that fails the check is fetched again, up to ``RetryPolicy/maxMismatches`` times, as a file that does not
    /// match its hash is: over plain HTTP a byte flipped on the way looks like tampering.
    /// - Throws: `AssetPackError/Code/untrusted` when the check fails, and the fetcher's errors.
    public func fetchManifest(with fetcher: RemoteFetcher, trust: ManifestTrust) async throws(AssetPackError) -> VerifiedManifest {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            let spool = try ManifestSpool(temporaryFor: url(of: BundleManifest.path).absoluteString)
            return try manifest(with: fetcher, trust: trust, into: spool, cancellation)
        }
    }

    /// Fetches the manifest into `spool` and checks it, as ``fetchManifest(with:trust:)`` does, on the
    /// calling thread, which blocks meanwhile. A required signature the server does not have, or has in the
    /// former form, is refused at once: fetching again would bring the same. `progress` counts their bytes.
    func manifest(with fetcher: RemoteFetcher, trust: ManifestTrust, into spool: ManifestSpool,
                  _ cancellation: ExpansionCancellation, progress: FetchProgress? = nil) throws(AssetPackError) -> VerifiedManifest {
        var refetches = 0
        while true {
            // The manifest is text that compresses about fivefold: a server or CDN may send it gzip-compressed.
            try fetcher.fetchWhole(url(of: BundleManifest.path), limit: manifestLimit, into: spool, cancellation, progress: progress,
                                   acceptsGzip: true)
            var signature: [UInt8]?
            if trust.requiresSignature {
                do {
                    signature = try fetcher.fetchBytes(url(of: ManifestSignature.path), limit: 4096, cancellation, progress: progress)
                } catch where error.code == .notFound {
                    signature = nil
                }
            }
            let final = trust.requiresSignature && (signature.map(ManifestSignature.isFormerForm) ?? true)
            do {
                return try trust.verify(spool, sha256: spool.sha256, signature: signature, origin: spool.origin)
            } catch where error.code == .untrusted && !final && refetches < fetcher.options.retry.maxMismatches {
                refetches += 1
            }
        }
    }
}
