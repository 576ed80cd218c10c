import AssetPack
import AssetPackSystem
import Crypto
import Foundation

/// An Ed25519 private key that signs bundle manifests at build time. Keep its file secret (written mode 0600);
/// ship only its ``publicKey``.
///
/// Key file (see ``keyFile``):
/// ```
/// assetpack ed25519 private key
/// <base64 of the 32-byte seed>
/// ```
public struct SigningKey: Sendable {
    /// The first line of a private key file.
    public static let header = "assetpack ed25519 private key"
    /// The 32-byte seed (swift-crypto's key type is not `Sendable`; it is remade from this when used).
    private let seed: [UInt8]

    /// A new random key.
    public static func generate() -> SigningKey { SigningKey(seed: [UInt8](Curve25519.Signing.PrivateKey().rawRepresentation)) }

    private init(seed: [UInt8]) { self.seed = seed }

    private var key: Curve25519.Signing.PrivateKey {
        // The seed was accepted by this initializer when the value was made.
        try! Curve25519.Signing.PrivateKey(rawRepresentation: seed)
    }

    /// The key in a private key file's text.
    /// - Parameters:
    ///   - text: the file's text, as ``keyFile`` writes it.
    ///   - origin: where the text came from, for messages.
    public init(keyFile text: String, origin: String? = nil) throws(AssetPackError) {
        let file = try KeyFile.parse(text, header: Self.header, count: 32, what: "assetpack private key file",
                                     code: .invalidArgument, origin: origin)
        guard (try? Curve25519.Signing.PrivateKey(rawRepresentation: file.bytes)) != nil else {
            throw AssetPackError(.invalidArgument, "not a valid Ed25519 private key", path: origin)
        }
        seed = file.bytes
    }

    /// The key read from the private key file at `path`.
    public init(contentsOf path: String) throws(AssetPackError) {
        try self.init(keyFile: try readText(path), origin: path)
    }

    /// The key's private key file text.
    public var keyFile: String { KeyFile(header: Self.header, bytes: seed).text }

    /// Writes the private key file to `path`, readable by its owner only; refuses to replace a file.
    public func write(to path: String) throws(AssetPackError) {
        try writeNewFile(path, keyFile, permissions: 0o600)
    }

    /// The public half, which verifies this key's signatures.
    public var publicKey: PublicKey { PublicKey(key.publicKey) }

    /// An Ed25519 signature of `message` (64 bytes).
    public func signature(for message: [UInt8]) throws(AssetPackError) -> [UInt8] {
        do {
            return [UInt8](try key.signature(for: message))
        } catch {
            throw AssetPackError(.invalidArgument, "cannot sign: \(error)")
        }
    }
}

/// An Ed25519 public key that apps trust for bundle manifests.
///
/// Key file (see ``keyFile``):
/// ```
/// assetpack ed25519 public key
/// <base64 of the 32-byte key>
/// ```
public struct PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The first line of a public key file.
    public static let header = "assetpack ed25519 public key"
    /// The 32 raw bytes.
    public let rawBytes: [UInt8]

    init(_ key: Curve25519.Signing.PublicKey) { rawBytes = [UInt8](key.rawRepresentation) }

    /// A key from its 32 raw bytes.
    public init(rawBytes: [UInt8]) throws(AssetPackError) {
        guard (try? Curve25519.Signing.PublicKey(rawRepresentation: rawBytes)) != nil else {
            throw AssetPackError(.invalidArgument, "not a valid Ed25519 public key (\(rawBytes.count) bytes)")
        }
        self.rawBytes = rawBytes
    }

    /// The key in a public key file's text.
    public init(keyFile text: String, origin: String? = nil) throws(AssetPackError) {
        let file = try KeyFile.parse(text, header: Self.header, count: 32, what: "assetpack public key file",
                                     code: .invalidArgument, origin: origin)
        try self.init(rawBytes: file.bytes)
    }

    /// The key read from the public key file at `path`.
    public init(contentsOf path: String) throws(AssetPackError) {
        try self.init(keyFile: try readText(path), origin: path)
    }

    /// The key's public key file text.
    public var keyFile: String { KeyFile(header: Self.header, bytes: rawBytes).text }

    /// Writes the public key file to `path` (mode 0644); refuses to replace a file.
    public func write(to path: String) throws(AssetPackError) {
        try writeNewFile(path, keyFile, permissions: 0o644)
    }

    /// The SHA-256 of the raw key: a fingerprint to compare out of band.
    public var fingerprint: ContentHash { ContentHash.of(rawBytes) }

    /// The first 16 hex digits of the fingerprint: names the key in signature files and messages.
    public var keyID: String { String(fingerprint.hex.prefix(16)) }

    public var description: String { "Ed25519 key \(keyID)" }

    /// Whether `signature` is this key's signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: rawBytes) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

private func readText(_ path: String) throws(AssetPackError) -> String {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw AssetPackError(FileManager.default.fileExists(atPath: path) ? .io : .notFound, "cannot read the key file", path: path)
    }
    guard data.count <= 4096 else { throw AssetPackError(.invalidArgument, "not a key file (larger than 4 KiB)", path: path) }
    return String(decoding: data, as: UTF8.self)
}

/// Creates `path` with `permissions` from the start (`O_CREAT | O_EXCL`: a private key is never readable by
/// others, not even for a moment, and no existing file is replaced) and writes `text`.
private func writeNewFile(_ path: String, _ text: String, permissions: UInt32) throws(AssetPackError) {
    let file: FileDescriptor
    do {
        file = try FileSystem.createFile(path, permissions: permissions)
    } catch where error.errno == .fileExists {
        throw AssetPackError(.invalidArgument, "a file is already there; a key file is never replaced", path: path)
    } catch {
        throw AssetPackError(error)
    }
    do throws(SystemError) {
        do {
            try file.writeAll(Array(text.utf8), path: path)
        } catch {
            file.close()
            throw error
        }
        try file.closeAfterWriting(path: path)
    } catch {
        try? FileSystem.removeTree(path)  // never a half-written key file
        throw AssetPackError(error)
    }
}
