import AssetPack
import AssetPackZip
import Foundation

/// What makes a fetched manifest trusted: a signature by one of the app's public keys, a pinned SHA-256 of the
/// manifest file, or both. The check runs on the SHA-256 of the manifest file, computed as it is fetched into a
/// spool file, before the manifest is parsed and before anything is installed: a manifest that fails it is an
/// error, with nothing but the (unlinked) spool written.
///
/// Why a signature is better than a pin: the pin must change with every bundle (the app must learn it from
/// somewhere it already trusts), while one public key, built into the app, vouches for every later bundle.
/// Why the pin is the manifest file's SHA-256 and not `BundleManifest/identity`: the identity hashes paths,
/// sizes and CRC-32s, and a CRC-32 is not a security check (content with any CRC-32 is easy to make).
public struct ManifestTrust: Sendable {
    /// Keys any one of which may sign the manifest; empty when no signature is required.
    public var keys: [PublicKey]
    /// The SHA-256 the manifest file must have, when pinned.
    public var pinnedSHA256: ContentHash?
    /// True only for ``unverified``.
    public let acceptsAnything: Bool

    /// Requires a valid signature by one of `keys` (several allow a rotation).
    public static func signed(by keys: [PublicKey]) -> ManifestTrust {
        ManifestTrust(keys: keys, pinnedSHA256: nil, acceptsAnything: false)
    }

    /// Requires the manifest file to hash to `sha256`.
    public static func pinned(sha256: ContentHash) -> ManifestTrust {
        ManifestTrust(keys: [], pinnedSHA256: sha256, acceptsAnything: false)
    }

    /// Requires a signature by one of `keys` and the pinned hash.
    public static func signed(by keys: [PublicKey], pinned sha256: ContentHash) -> ManifestTrust {
        ManifestTrust(keys: keys, pinnedSHA256: sha256, acceptsAnything: false)
    }

    /// Trusts any manifest: for development against a server you control. Files are still checked against the
    /// manifest's hashes, but whoever controls the server decides what they are.
    public static let unverified = ManifestTrust(keys: [], pinnedSHA256: nil, acceptsAnything: true)

    /// Whether the manifest's signature file is needed.
    public var requiresSignature: Bool { !keys.isEmpty }

    /// Checks a fetched manifest file whose SHA-256 is `sha256` (``ManifestSpool`` computed it as it wrote
    /// `file`).
    /// - Parameters:
    ///   - signature: the signature file's bytes; nil when there is none (the server answered 404).
    ///   - origin: where the manifest came from (a URL), for messages.
    /// - Throws: `AssetPackError/Code/untrusted` for a missing, malformed, old-form, unknown-key or invalid
    ///   signature and for a pin mismatch; `AssetPackError/Code/invalidArgument` for a policy that checks nothing.
    func verify(_ file: any RandomAccessSource, sha256: ContentHash, signature: [UInt8]?,
                origin: String) throws(AssetPackError) -> VerifiedManifest {
        guard acceptsAnything || requiresSignature || pinnedSHA256 != nil else {
            throw AssetPackError(.invalidArgument, "a manifest trust policy needs a public key or a pinned SHA-256", path: origin)
        }
        if let pinnedSHA256, sha256 != pinnedSHA256 {
            throw AssetPackError(.untrusted, "the manifest's SHA-256 is \(sha256), but \(pinnedSHA256) is pinned", path: origin)
        }
        var signer: PublicKey?
        if requiresSignature {
            signer = try checkSignature(sha256, signature, origin: origin)
        }
        return VerifiedManifest(file: file, sha256: sha256, signer: signer)
    }

    private func checkSignature(_ sha256: ContentHash, _ signature: [UInt8]?, origin: String) throws(AssetPackError) -> PublicKey {
        guard let signature else {
            let reason = "the manifest is not signed (no \(ManifestSignature.path)), and a signature by \(trusted) is required"
            throw AssetPackError(.untrusted, reason, path: origin)
        }
        let parsed = try ManifestSignature(fileBytes: signature, origin: origin)
        let candidates = keys.filter { $0.keyID == parsed.keyID }
        guard !candidates.isEmpty else {
            let reason = "the manifest is signed by key \(parsed.keyID), which is not trusted (trusted: \(trusted))"
            throw AssetPackError(.untrusted, reason, path: origin)
        }
        guard let signer = candidates.first(where: { parsed.isValid(forManifestSHA256: sha256, by: $0) }) else {
            let reason = "the manifest's signature by key \(parsed.keyID) does not verify: the manifest or its signature was altered"
            throw AssetPackError(.untrusted, reason, path: origin)
        }
        return signer
    }

    private var trusted: String { keys.map(\.keyID).joined(separator: ", ") }
}

/// A fetched manifest file that passed a ``ManifestTrust`` check; only the check makes one (as
/// ``RemoteBundle/fetchManifest(with:trust:)`` and ``RemoteBundle/install(into:trust:options:fetcher:progress:network:log:)``
/// fetch it), so code that takes a `VerifiedManifest` cannot be handed an unchecked manifest.
///
/// The manifest is a file (unlinked: gone once this value and its copies are), read by offset, never held in
/// memory whole: an install plans from it a window at a time however large it is.
public struct VerifiedManifest: Sendable {
    /// The manifest file, exactly the bytes whose SHA-256 was checked.
    public let file: any RandomAccessSource
    /// Their SHA-256.
    public let sha256: ContentHash
    /// The key whose signature checked out, when one was required.
    public let signer: PublicKey?

    /// Reads the manifest whole, its entries in memory (about 300 bytes of manifest, and more of memory, a
    /// file), checked as a local bundle's is: its format, paths, order, and its `BundleManifest/identity`
    /// against its entries. Meant for a manifest an app wants to look at; an install never reads it whole.
    /// - Throws: `.manifest` for a manifest that fails a check, `.limitExceeded` past `BundleManifest/maxEncodedSize`.
    public func decode(origin: String) throws(AssetPackError) -> BundleManifest {
        try BundleManifest.read(RandomAccessStream(file), origin: origin)
    }
}
