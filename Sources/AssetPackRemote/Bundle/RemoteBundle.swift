import AssetPack
import Foundation

/// A bundle folder served over HTTP, as `assetpack build` writes it: its identity, manifest and signature in
/// the reserved folder, and the files and archives the manifest names, each at `ROOT/<bundle-relative path>`.
public struct RemoteBundle: Sendable {
    /// The bundle folder's URL, e.g. `https://cdn.example.com/app.bundle`.
    public let root: URL
    /// The most bytes accepted for a manifest: by default the most a manifest may have
    /// (`BundleManifest/maxEncodedSize`, about 1.5 million files). It is spooled into a file, never held in memory.
    public var manifestLimit = UInt64(BundleManifest.maxEncodedSize)

    /// The bundle at `root`.
    public init(_ root: URL) { self.root = root }

    /// The URL of a bundle-relative path (`/`-separated); each component is percent-encoded as needed.
    public func url(of path: String) -> URL {
        path.split(separator: "/").reduce(root) { $0.appendingPathComponent(String($1), isDirectory: false) }
    }

    /// Fetches the bundle's identity (one small request): compare it with the installed identity to learn
    /// whether anything changed. Not verified: it only decides whether to fetch the manifest, which is.
    public func fetchIdentity(with fetcher: RemoteFetcher) async throws(AssetPackError) -> String {
        try await AssetInstaller.onOwnThread { cancellation throws(AssetPackError) in
            try identity(with: fetcher, cancellation)
        }
    }

    /// ``fetchIdentity(with:)`` on the calling thread, which blocks meanwhile; `progress` counts its bytes.
    func identity(with fetcher: RemoteFetcher, _ cancellation: ExpansionCancellation,
                  progress: FetchProgress? = nil) throws(AssetPackError) -> String {
        let url = url(of: BundleManifest.identityPath)
        let bytes = try fetcher.fetchBytes(url, limit: 256, cancellation, progress: progress)
        let identity = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard ContentHash(hex: identity) != nil else {
            throw AssetPackError(.manifest, "not a bundle identity (64 hex digits expected)", path: url.absoluteString)
        }
        return identity.lowercased()
    }

    /// Fetches the manifest (and its signature, when `trust` requires one) and checks it.
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
