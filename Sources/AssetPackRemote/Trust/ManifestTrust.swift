import AssetPack
import Foundation

/// What makes a fetched manifest trusted: a signature by one of the app's public keys, a pinned SHA-256 of the
/// manifest file, or both. The check runs on the manifest's bytes before they are parsed, and before anything
/// is written: a manifest that fails it is an error, with nothing downloaded or installed.
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

    /// Checks a manifest file's bytes.
    /// - Parameters:
    ///   - manifest: the manifest file's bytes, as fetched.
    ///   - signature: the signature file's bytes; nil when there is none (the server answered 404).
    ///   - origin: where the manifest came from (a URL), for messages.
    /// - Throws: `AssetPackError/Code/untrusted` for a missing, malformed, unknown-key or invalid signature
    ///   and for a pin mismatch; `AssetPackError/Code/invalidArgument` for a policy that checks nothing.
    public func verify(manifest: [UInt8], signature: [UInt8]?, origin: String) throws(AssetPackError) -> VerifiedManifest {
        let digest = ContentHash.of(manifest)
        guard acceptsAnything || requiresSignature || pinnedSHA256 != nil else {
            throw AssetPackError(.invalidArgument, "a manifest trust policy needs a public key or a pinned SHA-256", path: origin)
        }
        if let pinnedSHA256, digest != pinnedSHA256 {
            throw AssetPackError(.untrusted, "the manifest's SHA-256 is \(digest), but \(pinnedSHA256) is pinned", path: origin)
        }
        var signer: PublicKey?
        if requiresSignature {
            signer = try checkSignature(manifest, signature, origin: origin)
        }
        return VerifiedManifest(bytes: manifest, sha256: digest, signer: signer)
    }

    private func checkSignature(_ manifest: [UInt8], _ signature: [UInt8]?, origin: String) throws(AssetPackError) -> PublicKey {
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
        guard let signer = candidates.first(where: { parsed.isValid(for: manifest, by: $0) }) else {
            let reason = "the manifest's signature by key \(parsed.keyID) does not verify: the manifest or its signature was altered"
            throw AssetPackError(.untrusted, reason, path: origin)
        }
        return signer
    }

    private var trusted: String { keys.map(\.keyID).joined(separator: ", ") }
}

/// Manifest bytes that passed a ``ManifestTrust`` check; only ``ManifestTrust/verify(manifest:signature:origin:)``
/// makes one, so code that takes a `VerifiedManifest` cannot be handed an unchecked manifest.
public struct VerifiedManifest: Sendable {
    /// The manifest file's bytes.
    public let bytes: [UInt8]
    /// Their SHA-256.
    public let sha256: ContentHash
    /// The key whose signature checked out, when one was required.
    public let signer: PublicKey?

    /// Parses the manifest and checks that its `BundleManifest/identity` is the one of its entries.
    public func decode(origin: String) throws(AssetPackError) -> BundleManifest {
        let manifest = try BundleManifest.decode(bytes, origin: origin)
        try Self.checkIdentity(of: manifest, origin: origin)
        return manifest
    }

    /// Throws `.manifest` unless `manifest`'s `BundleManifest/identity` is the one of its entries.
    static func checkIdentity(of manifest: BundleManifest, origin: String) throws(AssetPackError) {
        let computed = ContentIdentity.of(manifest.entries)
        guard computed == manifest.identity else {
            throw AssetPackError(.manifest, "the manifest's identity \(manifest.identity) is not the one of its entries (\(computed))", path: origin)
        }
    }
}
