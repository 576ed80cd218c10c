import AssetPack
import Foundation

/// A detached Ed25519 signature of a bundle's manifest, made at build time and served beside it as
/// ``path`` (`manifest.sig` in the bundle's reserved folder, beside the manifest):
///
/// ```
/// assetpack ed25519 signature
/// key 3f2a9c0e5b71d4a8
/// <base64 of the 64-byte signature>
/// ```
///
/// `key` is the signer's ``PublicKey/keyID`` (a hint for messages and key rotation; the signature itself is
/// what is checked). What is signed is ``domain`` followed by the manifest file's exact bytes, so a signature
/// over a manifest cannot be replayed as a signature of anything else made with the same key.
public struct ManifestSignature: Sendable, Equatable {
    /// The signature file's path inside a bundle.
    public static let path = BundleManifest.reservedDirectory + "/manifest.sig"
    /// The first line of a signature file.
    public static let header = "assetpack ed25519 signature"
    /// The bytes signed before the manifest's: `assetpack manifest signature 1` and a newline.
    public static let domain = Array("assetpack manifest signature 1\n".utf8)

    /// The signer's key ID.
    public var keyID: String
    /// The 64 signature bytes.
    public var bytes: [UInt8]

    /// Signs `manifest` (a manifest file's bytes) with `key`.
    public static func sign(_ manifest: [UInt8], with key: SigningKey) throws(AssetPackError) -> ManifestSignature {
        ManifestSignature(keyID: key.publicKey.keyID, bytes: try key.signature(for: domain + manifest))
    }

    /// A signature from its parts.
    public init(keyID: String, bytes: [UInt8]) {
        self.keyID = keyID
        self.bytes = bytes
    }

    /// Parses a signature file; a malformed one is an `AssetPackError/Code/untrusted` error.
    public init(fileBytes: [UInt8], origin: String? = nil) throws(AssetPackError) {
        let file = try KeyFile.parse(String(decoding: fileBytes, as: UTF8.self), header: Self.header, fields: ["key"],
                                     count: 64, what: "manifest signature file", code: .untrusted, origin: origin)
        self.init(keyID: file.field("key") ?? "", bytes: file.bytes)
    }

    /// The signature file's bytes.
    public var fileBytes: [UInt8] {
        Array(KeyFile(header: Self.header, fields: [("key", keyID)], bytes: bytes).text.utf8)
    }

    /// Whether this is `key`'s signature of `manifest`.
    public func isValid(for manifest: [UInt8], by key: PublicKey) -> Bool {
        key.isValidSignature(bytes, for: Self.domain + manifest)
    }
}
