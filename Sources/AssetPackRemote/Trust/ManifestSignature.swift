import AssetPack
import Foundation

/// A detached Ed25519 signature of a bundle's manifest, made at build time and served beside it as
/// ``path`` (`manifest.sig` in the bundle's reserved folder, beside the manifest):
///
/// ```
/// assetpack ed25519 signature 2
/// key 3f2a9c0e5b71d4a8
/// <base64 of the 64-byte signature>
/// ```
///
/// `key` is the signer's ``PublicKey/keyID`` (a hint for messages). What is signed is ``domain`` followed by the
/// manifest's SHA-256, so a client checks a manifest of any size as it arrives, and the signature cannot be
/// replayed for anything else made with the same key.
public struct ManifestSignature: Sendable, Equatable {
    /// The signature file's path inside a bundle.
    public static let path = BundleManifest.reservedDirectory + "/manifest.sig"
    /// The first line of a signature file.
    public static let header = "assetpack ed25519 signature 2"
    /// The first line of a signature file of the first form, over the manifest's bytes: no longer checked.
    static let formerHeader = "assetpack ed25519 signature"
    /// The bytes signed before the manifest's SHA-256: `assetpack manifest signature 2` and a newline.
    public static let domain = Array("assetpack manifest signature 2\n".utf8)

    /// The signer's key ID.
    public var keyID: String
    /// The 64 signature bytes.
    public var bytes: [UInt8]

    /// Signs the manifest file whose SHA-256 is `manifestSHA256` with `key`.
    public static func sign(manifestSHA256: ContentHash, with key: SigningKey) throws(AssetPackError) -> ManifestSignature {
        ManifestSignature(keyID: key.publicKey.keyID, bytes: try key.signature(for: domain + manifestSHA256.bytes))
    }

    /// A signature from its parts.
    public init(keyID: String, bytes: [UInt8]) {
        self.keyID = keyID
        self.bytes = bytes
    }

    /// Parses a signature file; a malformed one, or one of the first form, is an
    /// `AssetPackError/Code/untrusted` error.
    public init(fileBytes: [UInt8], origin: String? = nil) throws(AssetPackError) {
        let text = String(decoding: fileBytes, as: UTF8.self)
        if Self.isFormerForm(fileBytes) {
            throw AssetPackError(.untrusted, "the manifest's signature is of an older form (over the manifest's bytes, not its "
                                 + "SHA-256): sign the bundle again with this assetpack (`assetpack sign`)", path: origin)
        }
        let file = try KeyFile.parse(text, header: Self.header, fields: ["key"], count: 64, what: "manifest signature file",
                                     code: .untrusted, origin: origin)
        self.init(keyID: file.field("key") ?? "", bytes: file.bytes)
    }

    /// Whether `fileBytes` is a signature file of the first form (``formerHeader``), over the manifest's bytes.
    static func isFormerForm(_ fileBytes: [UInt8]) -> Bool {
        let first = fileBytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? []
        return String(decoding: first, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == formerHeader
    }

    /// The signature file's bytes.
    public var fileBytes: [UInt8] {
        Array(KeyFile(header: Self.header, fields: [("key", keyID)], bytes: bytes).text.utf8)
    }

    /// Whether this is `key`'s signature of the manifest file whose SHA-256 is `manifestSHA256`.
    public func isValid(forManifestSHA256 manifestSHA256: ContentHash, by key: PublicKey) -> Bool {
        key.isValidSignature(bytes, for: Self.domain + manifestSHA256.bytes)
    }
}
