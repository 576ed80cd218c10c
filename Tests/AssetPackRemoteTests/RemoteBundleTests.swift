import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// A bundle's identity and signed manifest fetched from nginx: one request when up to date, and a manifest
/// that fails its check is an error before any file of the bundle is asked for.
@Suite(ExternalTool.nginx.needed)
struct RemoteBundleTests {
    let key = SigningKey.generate()
    let content = Array("hello\n".utf8)

    func manifest() -> BundleManifest {
        BundleManifest(threshold: 1 << 20, generator: "test", entries: [
            .directory("a b"), .file("a b/grüß.txt", size: 6, crc32: 0x363a3020, storage: .plain("a b/grüß.txt"),
                                        sha256: ContentHash.of(content).description),
        ])
    }

    /// nginx serving a bundle folder at /app.bundle: identity, manifest, signature (unless `signed` is false),
    /// the file; `manifestBytes` replaces the manifest served (the signature stays that of the real one).
    func site(signed: Bool = true, manifestBytes: [UInt8]? = nil) async throws -> Site {
        let manifest = manifest()
        let json = try manifest.encodedJSON()
        var files: [String: [UInt8]] = [
            "app.bundle/" + BundleManifest.identityPath: Array(manifest.identity.utf8),
            "app.bundle/" + BundleManifest.path: manifestBytes ?? json,
            "app.bundle/a b/grüß.txt": content,
        ]
        if signed { files["app.bundle/" + ManifestSignature.path] = try ManifestSignature.sign(json, with: key).fileBytes }
        return try await Site(files)
    }

    @Test func theIdentityIsOneSmallRequest() async throws {
        let site = try await site()
        let bundle = RemoteBundle(site.url("app.bundle"))
        let identity = try await bundle.fetchIdentity(with: RemoteFetcher(options: testOptions()))
        #expect(identity == manifest().identity)
        let log = await site.server.requests(atLeast: 1)
        #expect(log.map(\.path) == ["/app.bundle/" + BundleManifest.identityPath])
        #expect(log.first?.bodyBytes == 64)
    }

    @Test func aSignedManifestIsFetchedVerifiedAndItsFilesReachable() async throws {
        let site = try await site()
        let bundle = RemoteBundle(site.url("app.bundle"))
        let fetcher = RemoteFetcher(options: testOptions())
        let verified = try await bundle.fetchManifest(with: fetcher, trust: .signed(by: [key.publicKey]))
        #expect(verified.signer == key.publicKey)
        let decoded = try verified.decode(origin: "test")
        #expect(decoded == manifest())
        let file = decoded.entries[1]
        let item = FetchItem.file(bundle.url(of: file.storage!.file), size: file.size!, sha256: .of(content))
        #expect(try await fetchToMemory(fetcher, item).bytes == content)
        #expect(await site.server.requests(atLeast: 3).map(\.path) == ["/app.bundle/" + BundleManifest.path, "/app.bundle/" + ManifestSignature.path, "/app.bundle/a b/grüß.txt"])
    }

    @Test func aTamperedManifestIsRefusedBeforeAnyFileIsFetched() async throws {
        var tampered = try manifest().encodedJSON()
        tampered[tampered.count - 3] = UInt8(ascii: " ")
        let site = try await site(manifestBytes: tampered)
        let error = await expectFailure {
            try await RemoteBundle(site.url("app.bundle")).fetchManifest(with: RemoteFetcher(options: testOptions()), trust: .signed(by: [key.publicKey]))
        }
        #expect(error?.code == .untrusted)
        #expect(error?.path == site.url("app.bundle/" + BundleManifest.path).absoluteString)
        #expect(error?.message.contains("does not verify") == true)
        // Fetched again twice (RetryPolicy.maxMismatches), as a byte flipped on the way would be, then refused.
        let pair = ["/app.bundle/" + BundleManifest.path, "/app.bundle/" + ManifestSignature.path]
        #expect(await site.server.requests(atLeast: 6).map(\.path) == pair + pair + pair)
    }

    @Test func aMissingSignatureIsRefusedWhenRequired() async throws {
        let site = try await site(signed: false)
        let bundle = RemoteBundle(site.url("app.bundle"))
        let error = await expectFailure { try await bundle.fetchManifest(with: RemoteFetcher(options: testOptions()), trust: .signed(by: [key.publicKey])) }
        #expect(error?.code == .untrusted)
        #expect(error?.message.contains("the manifest is not signed") == true)
        // Pinning needs no signature file and does not ask for one.
        let pinned = try await bundle.fetchManifest(with: RemoteFetcher(options: testOptions()), trust: .pinned(identity: try #require(ContentHash(hex: manifest().identity))))
        #expect(try pinned.decode(origin: "t") == manifest())
        #expect(await site.server.requests(atLeast: 3).map(\.path).last == "/app.bundle/" + BundleManifest.path)
    }
}
