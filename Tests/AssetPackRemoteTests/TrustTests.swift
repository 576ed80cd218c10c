import AssetPack
import AssetPackZip
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Ed25519 keys, their files, manifest signatures and the trust policies that check them.
struct TrustTests {
    let key = SigningKey.generate()
    let manifest = Array(#"{"format":1,"identity":"x"}"#.utf8) + [0x0A]

    func signature(_ bytes: [UInt8]? = nil, by signer: SigningKey? = nil) throws -> [UInt8] {
        try ManifestSignature.sign(bytes ?? manifest, with: signer ?? key).fileBytes
    }

    // MARK: Keys and key files

    @Test func keyFilesRoundTrip() throws {
        let privateText = key.keyFile
        let lines = privateText.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "assetpack ed25519 private key")
        #expect(lines[1].count == 44)
        let reread = try SigningKey(keyFile: privateText)
        #expect(reread.publicKey == key.publicKey)
        let publicText = key.publicKey.keyFile
        #expect(publicText.hasPrefix("assetpack ed25519 public key\n"))
        #expect(try PublicKey(keyFile: publicText) == key.publicKey)
        #expect(key.publicKey.keyID.count == 16)
        #expect(key.publicKey.keyID == String(key.publicKey.fingerprint.hex.prefix(16)))
    }

    @Test func keyFilesAllowCommentsBlankLinesAndCRLF() throws {
        let base64 = key.publicKey.keyFile.split(separator: "\n")[1]
        let text = "# the app's release key\r\nassetpack ed25519 public key\r\n\r\n# made 2026\r\n\(base64)\r\n"
        #expect(try PublicKey(keyFile: text) == key.publicKey)
    }

    @Test(arguments: [
        ("assetpack ed25519 private key\n", "the first line must be"),
        ("assetpack ed25519 public key\n", "the base64 line is missing"),
        ("assetpack ed25519 public key\nAAAA\n", "expected one base64 line of 32 bytes"),
        ("assetpack ed25519 public key\n!!notbase64!!\n", "expected one base64 line of 32 bytes"),
        ("assetpack ed25519 public key\nkey abc\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "unexpected line"),
    ])
    func malformedPublicKeyFilesAreRefused(_ text: String, _ reason: String) {
        do {
            _ = try PublicKey(keyFile: text, origin: "app.pub")
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.path == "app.pub")
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func aPublicKeyFileIsNotAPrivateKeyFile() {
        #expect(throws: AssetPackError.self) { try SigningKey(keyFile: key.publicKey.keyFile) }
        #expect(throws: AssetPackError.self) { try PublicKey(keyFile: key.keyFile) }
    }

    @Test func keyFilesAreWrittenOnceAndThePrivateOneOnlyForItsOwner() throws {
        let folder = try TemporaryDirectory("keys")
        try key.write(to: folder.file("app.key"))
        try key.publicKey.write(to: folder.file("app.pub"))
        let mode = try FileManager.default.attributesOfItem(atPath: folder.file("app.key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try SigningKey(contentsOf: folder.file("app.key")).publicKey == key.publicKey)
        #expect(try PublicKey(contentsOf: folder.file("app.pub")) == key.publicKey)
        #expect(throws: AssetPackError.self) { try SigningKey.generate().write(to: folder.file("app.key")) }
        #expect(try SigningKey(contentsOf: folder.file("app.key")).publicKey == key.publicKey)
        #expect(throws: AssetPackError.self) { try PublicKey(contentsOf: folder.file("missing.pub")) }
    }

    // MARK: Signatures

    @Test func aSignedManifestVerifies() throws {
        let file = try signature()
        let text = String(decoding: file, as: UTF8.self)
        #expect(text.hasPrefix("assetpack ed25519 signature 2\nkey \(key.publicKey.keyID)\n"))
        let verified = try ManifestTrust.signed(by: [key.publicKey]).verify(manifest: manifest, signature: file, origin: "m")
        #expect(try RandomAccessStream(verified.file).readAll() == manifest)
        #expect(verified.signer == key.publicKey)
        #expect(verified.sha256 == ContentHash.of(manifest))
    }

    @Test func anyTrustedKeyWillDo() throws {
        let other = SigningKey.generate()
        let trust = ManifestTrust.signed(by: [other.publicKey, key.publicKey])
        #expect(try trust.verify(manifest: manifest, signature: try signature(), origin: "m").signer == key.publicKey)
    }

    @Test func aTamperedManifestIsRefused() throws {
        var tampered = manifest
        tampered[3] ^= 1
        let error = refusal(.signed(by: [key.publicKey]), tampered, try signature())
        #expect(error?.message == "the manifest's signature by key \(key.publicKey.keyID) does not verify: the manifest or its signature was altered")
    }

    @Test func aTamperedSignatureIsRefused() throws {
        var parsed = try ManifestSignature(fileBytes: try signature())
        parsed.bytes[10] ^= 0x40
        let error = refusal(.signed(by: [key.publicKey]), manifest, parsed.fileBytes)
        #expect(error?.message.contains("does not verify") == true)
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        let stranger = SigningKey.generate()
        let error = refusal(.signed(by: [key.publicKey]), manifest, try signature(by: stranger))
        #expect(error?.message == "the manifest is signed by key \(stranger.publicKey.keyID), which is not trusted (trusted: \(key.publicKey.keyID))")
    }

    @Test func aSignatureByAnotherKeyClaimingATrustedKeyIDIsRefused() throws {
        var forged = try ManifestSignature.sign(manifest, with: SigningKey.generate())
        forged.keyID = key.publicKey.keyID
        let error = refusal(.signed(by: [key.publicKey]), manifest, forged.fileBytes)
        #expect(error?.message.contains("does not verify") == true)
    }

    @Test func aMissingSignatureIsRefusedWhenOneIsRequired() {
        let error = refusal(.signed(by: [key.publicKey]), manifest, nil)
        #expect(error?.message == "the manifest is not signed (no \(ManifestSignature.path)), and a signature by \(key.publicKey.keyID) is required")
    }

    @Test func aMalformedSignatureFileIsRefused() {
        let error = refusal(.signed(by: [key.publicKey]), manifest, Array("assetpack ed25519 signature 2\nkey x\nAAAA\n".utf8))
        #expect(error?.message.hasPrefix("not a valid manifest signature file") == true)
    }

    @Test func aPlainSignatureWithoutTheDomainIsRefused() throws {
        let bare = ManifestSignature(keyID: key.publicKey.keyID, bytes: try key.signature(for: manifest))
        let error = refusal(.signed(by: [key.publicKey]), manifest, bare.fileBytes)
        #expect(error?.message.contains("does not verify") == true)
    }

    @Test func whatIsSignedIsTheDomainAndTheManifestsSHA256() throws {
        let parsed = try ManifestSignature(fileBytes: try signature())
        let signed = Array("assetpack manifest signature 2\n".utf8) + ContentHash.of(manifest).bytes
        #expect(signed.count == 31 + 32)
        #expect(key.publicKey.isValidSignature(parsed.bytes, for: signed))
        #expect(parsed.isValid(forManifestSHA256: .of(manifest), by: key.publicKey))
        #expect(!parsed.isValid(forManifestSHA256: .of(manifest + [0x20]), by: key.publicKey))
    }

    @Test func aSignatureOfTheFormerFormIsRefusedWithWhatToDo() throws {
        // The first form: "assetpack ed25519 signature" over "assetpack manifest signature 1\n" + the manifest's bytes.
        let former = try key.signature(for: Array("assetpack manifest signature 1\n".utf8) + manifest)
        let file = "assetpack ed25519 signature\nkey \(key.publicKey.keyID)\n\(Data(former).base64EncodedString())\n"
        let error = refusal(.signed(by: [key.publicKey]), manifest, Array(file.utf8))
        #expect(error?.message == "the manifest's signature is of an older form (over the manifest's bytes, not its SHA-256): "
                + "sign the bundle again with this assetpack (`assetpack sign`)")
    }

    // MARK: Pins and policies

    /// A manifest of one file, with a SHA-256 (`hashed`) or without, and its identity.
    func bundleManifest(hashed: Bool = true) throws -> (json: [UInt8], identity: ContentHash) {
        let manifest = BundleManifest(threshold: 0, generator: "t", entries: [
            .file("a", size: 1, crc32: 0xE8B7BE43, storage: .plain("a"), sha256: hashed ? ContentHash.of([0x61]).description : nil),
        ])
        return (try manifest.encodedJSON(), try #require(ContentHash(hex: manifest.identity)))
    }

    @Test func aPinnedBundleMustHaveItsIdentity() throws {
        let (json, identity) = try bundleManifest()
        #expect(try ManifestTrust.pinned(identity: identity).verify(manifest: json, signature: nil, origin: "m").signer == nil)
        let other = ContentHash.of([1, 2, 3])
        let error = refusal(.pinned(identity: other), json, nil)
        #expect(error?.message == "the bundle's identity is \(identity), but \(other) is pinned")
    }

    @Test func aPinnedBundleNeedsASHA256OfEachFile() throws {
        let (json, identity) = try bundleManifest(hashed: false)
        do {
            _ = try ManifestTrust.pinned(identity: identity).verify(manifest: json, signature: nil, origin: "m")
            Issue.record("a manifest without SHA-256s was trusted by its identity")
        } catch {
            #expect(error.code == .manifest)
            #expect(error.message == "\"a\" has no SHA-256: a bundle is pinned by its identity only when each file has one "
                    + "(build it again, or sign it)")
        }
    }

    @Test func signedAndPinnedNeedsBoth() throws {
        let (json, identity) = try bundleManifest()
        let trust = ManifestTrust.signed(by: [key.publicKey], pinned: identity)
        _ = try trust.verify(manifest: json, signature: try signature(json), origin: "m")
        #expect(refusal(trust, json, nil) != nil)
        #expect(refusal(.signed(by: [key.publicKey], pinned: .of([0])), json, try signature(json)) != nil)
    }

    @Test func aPolicyMustCheckSomethingUnlessItSaysItDoesNot() throws {
        _ = try ManifestTrust.unverified.verify(manifest: manifest, signature: nil, origin: "m")
        #expect(throws: AssetPackError.self) { try ManifestTrust.signed(by: []).verify(manifest: manifest, signature: nil, origin: "m") }
    }

    // MARK: The manifest behind the bytes

    @Test func aVerifiedManifestDecodesAndItsIdentityIsChecked() throws {
        let entries: [BundleManifest.Entry] = [.directory("a"), .file("a/b.txt", size: 3, crc32: 0x352441c2, storage: .plain("a/b.txt"))]
        let real = BundleManifest(threshold: 1 << 20, generator: "test", entries: entries)
        let bytes = try real.encodedJSON()
        let decoded = try ManifestTrust.unverified.verify(manifest: bytes, signature: nil, origin: "m").decode(origin: "m")
        #expect(decoded == real)
        var forged = real
        forged.entries[1].size = 4
        let forgedBytes = try forged.encodedJSON()
        #expect(throws: AssetPackError.self) {
            try ManifestTrust.unverified.verify(manifest: forgedBytes, signature: nil, origin: "m").decode(origin: "m")
        }
    }

    func refusal(_ trust: ManifestTrust, _ manifest: [UInt8], _ signature: [UInt8]?, sourceLocation: SourceLocation = #_sourceLocation) -> AssetPackError? {
        do {
            _ = try trust.verify(manifest: manifest, signature: signature, origin: "https://h/app.bundle/.assetpack/manifest.json")
            Issue.record("the manifest was accepted", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.code == .untrusted, sourceLocation: sourceLocation)
            #expect(error.path == "https://h/app.bundle/.assetpack/manifest.json", sourceLocation: sourceLocation)
            return error
        }
    }
}

extension ManifestTrust {
    /// The check of a manifest in memory, hashed here as ``ManifestSpool`` hashes one as it arrives.
    func verify(manifest: [UInt8], signature: [UInt8]?, origin: String) throws(AssetPackError) -> VerifiedManifest {
        try verify(MemorySource(manifest), sha256: .of(manifest), signature: signature, origin: origin)
    }
}

extension ManifestSignature {
    /// The signature of the manifest file whose bytes are `manifest`.
    static func sign(_ manifest: [UInt8], with key: SigningKey) throws(AssetPackError) -> ManifestSignature {
        try sign(manifestSHA256: .of(manifest), with: key)
    }
}
