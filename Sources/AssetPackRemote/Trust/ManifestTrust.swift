import AssetPack
import AssetPackZip
import Foundation

/// What makes a fetched manifest trusted: a signature by one of the app's public keys, a pinned bundle identity,
/// or both, checked before anything is installed. A signature is better than a pin: the pin must change with
/// every bundle, while one public key built into the app vouches for every later bundle. The pin is
/// `BundleManifest/identity`, which names the bytes of each file, so only a manifest with a SHA-256 for every
/// file can be pinned.
public struct ManifestTrust: Sendable {
    /// Keys any one of which may sign the manifest; empty when no signature is required.
    public var keys: [PublicKey]
    /// The identity (`BundleManifest/identity`) the manifest must have, when pinned.
    public var pinnedIdentity: ContentHash?
    /// True only for ``unverified``.
    public let acceptsAnything: Bool

    /// Requires a valid signature by one of `keys` (several allow a rotation).
    public static func signed(by keys: [PublicKey]) -> ManifestTrust {
        ManifestTrust(keys: keys, pinnedIdentity: nil, acceptsAnything: false)
    }

    /// Requires the bundle to have `identity`, with a SHA-256 for each file.
    public static func pinned(identity: ContentHash) -> ManifestTrust {
        ManifestTrust(keys: [], pinnedIdentity: identity, acceptsAnything: false)
    }

    /// Requires a signature by one of `keys` and the pinned identity.
    public static func signed(by keys: [PublicKey], pinned identity: ContentHash) -> ManifestTrust {
        ManifestTrust(keys: keys, pinnedIdentity: identity, acceptsAnything: false)
    }

    /// Trusts any manifest: for development against a server you control. Files are still checked against the
    /// manifest's hashes, but whoever controls the server decides what they are.
    public static let unverified = ManifestTrust(keys: [], pinnedIdentity: nil, acceptsAnything: true)

    /// Whether the manifest's signature file is needed.
    public var requiresSignature: Bool { !keys.isEmpty }

    /// Checks a fetched manifest file whose SHA-256 is `sha256` (``ManifestSpool`` computed it as it wrote
    /// `file`).
    /// - Parameters:
    ///   - signature: the signature file's bytes; nil when there is none (the server answered 404).
    ///   - origin: where the manifest came from (a URL), for messages.
    /// - Throws: `AssetPackError/Code/untrusted` for a missing, malformed, old-form, unknown-key or invalid
    ///   signature and for a pin mismatch; `AssetPackError/Code/invalidArgument` for a policy that checks nothing;
    ///   `AssetPackError/Code/manifest` for a pinned manifest that fails a check of its own.
    func verify(_ file: any RandomAccessSource, sha256: ContentHash, signature: [UInt8]?,
                origin: String) throws(AssetPackError) -> VerifiedManifest {
        guard acceptsAnything || requiresSignature || pinnedIdentity != nil else {
            throw AssetPackError(.invalidArgument, "a manifest trust policy needs a public key or a pinned identity", path: origin)
        }
        var signer: PublicKey?
        if requiresSignature {
            signer = try checkSignature(sha256, signature, origin: origin)
        }
        if let pinnedIdentity {
            let identity = try BundleManifest.identityOfHashedFiles(RandomAccessStream(file), origin: origin)
            guard ContentHash(hex: identity) == pinnedIdentity else {
                throw AssetPackError(.untrusted, "the bundle's identity is \(identity), but \(pinnedIdentity) is pinned", path: origin)
            }
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

/// A fetched manifest file that passed a ``ManifestTrust`` check; only the check makes one, so code that takes
/// a `VerifiedManifest` cannot be handed an unchecked manifest. The file is unlinked and read by offset, never
/// held in memory whole.
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
