import AssetPack
import AssetPackZip
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// The manifest of a remote install is spooled into an unlinked file in the destination's staging tree, hashed
/// as it arrives, and planned from there: no size limit but the reader's, a download cut off is a clear error
/// that leaves nothing beside the destination, and the next run installs.
@Suite struct RemoteManifestSpoolTests {
    /// What is beside the destination (in the folder that holds it), other than the destination itself.
    static func besides(_ fixture: RemoteInstallFixture) throws -> [String] {
        let parent = fixture.scratch.file("installed")
        guard FileManager.default.fileExists(atPath: parent) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: parent).filter { $0 != "assets" }
    }

    @Test func aManifestLargerThanTheFormer64MiBLimitInstalls() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files, sign: false)
        // White space is valid anywhere between JSON tokens: 65 MiB of it after the opening brace.
        let path = fixture.served + "/" + BundleManifest.path
        let manifest = try fileBytes(path)
        let brace = try #require(manifest.firstIndex(of: UInt8(ascii: "{")))
        var padded = Array(manifest[...brace])
        padded += [UInt8](repeating: 0x20, count: 65 << 20)
        padded += manifest[(brace + 1)...]
        try Data(padded).write(to: URL(fileURLWithPath: path))
        try BundleSigning.sign(bundle: fixture.served, with: RemoteInstallFixture.key)
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        #expect(try Self.besides(fixture) == [])
    }

    @Test func aManifestPastTheBundlesLimitIsRefusedAndLeavesNothing() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        var bundle = RemoteBundle(fixture.url)
        bundle.manifestLimit = 1000
        let error = await expectFailure {
            try await bundle.install(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                     fetcher: RemoteFetcher(options: testOptions()))
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.path == fixture.url.absoluteString + "/" + BundleManifest.path)
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file("installed")))
    }

    @Test(arguments: ["drop", "truncate"])
    func aManifestDownloadCutOffIsAClearErrorAndTheNextRunInstalls(_ name: String) async throws {
        let healed = Flag()
        // Request 0 is the identity. Dropped, the manifest is asked again (1, 2, …); cut short with headers that
        // agree, it arrives "whole" and is refetched with its signature (1 and 2, 3 and 4, …): cut every manifest.
        let fixture = try await RemoteInstallFixture(faults: { number in
            if healed.isSet || number == 0 { return .none }
            return name == "drop" ? .dropAfter(bytes: 300) : number % 2 == 1 ? .truncate(bytes: 300) : .none
        })
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let error = await expectFailure { try await fixture.install(options: testOptions(attempts: 2)) }
        // Cut off: retried, then a network error; cut short with headers that agree: it fails its signature.
        #expect(error?.code == (name == "drop" ? .network : .untrusted), "\(String(describing: error))")
        #expect(error?.path == fixture.url.absoluteString + "/" + BundleManifest.path)
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file("installed")))
        _ = healed.set()
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        #expect(try Self.besides(fixture) == [])
    }

    @Test func aManifestSpoolLeftByACrashIsRemovedByTheNextRun() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let staging = fixture.scratch.file("installed/.assets.assetpack-staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        try Data("{\"half a manifest".utf8).write(to: URL(fileURLWithPath: staging + "/.assetpack-tmp-manifest.json"))
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        #expect(try Self.besides(fixture) == [])
    }

    /// Blocks the file open as `descriptor` holds (`st_blocks`: delayed allocations included).
    static func blocks(_ descriptor: Int32) -> Int {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return -1 }
        return Int(info.st_blocks)
    }

    @Test func aDiscardedSpoolHoldsNoBytesNoBlocksAndKeepsItsHash() throws {
        let dir = try TemporaryDirectory("spool-discard")
        let file = try AssetInstaller.manifestSpool(for: dir.file("installed/assets"))
        let spool = ManifestSpool(file: file, origin: "test manifest")
        let bytes = [UInt8](repeating: 0x61, count: 1 << 20)
        let written = bytes.withUnsafeBytes { (raw) in Result { () throws(AssetPackError) in try spool.write(raw) } }
        try written.get()
        let hash = spool.sha256
        #expect(Self.blocks(file.rawValue) > 0)
        spool.discard()
        #expect(spool.size == 0)
        #expect(Self.blocks(file.rawValue) == 0, "truncated: its pages are dropped, not written back")
        var buffer = [UInt8](repeating: 0, count: 16)
        let read = buffer.withUnsafeMutableBytes { (raw) in
            Result { () throws(ZipError) in try spool.read(into: raw, at: 0) }
        }
        #expect(try read.get() == 0)
        #expect(spool.sha256 == hash)
    }

    @Test func aSignatureOfTheFormerFormIsRefusedAtOnceWithWhatToDo() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        let manifest = try fileBytes(fixture.served + "/" + BundleManifest.path)
        let former = try RemoteInstallFixture.key.signature(for: Array("assetpack manifest signature 1\n".utf8) + manifest)
        let file = "assetpack ed25519 signature\nkey \(RemoteInstallFixture.key.publicKey.keyID)\n\(Data(former).base64EncodedString())\n"
        try Data(file.utf8).write(to: URL(fileURLWithPath: fixture.served + "/" + ManifestSignature.path))
        let error = await expectFailure { try await fixture.install() }
        #expect(error?.code == .untrusted)
        #expect(error?.message.hasSuffix("sign the bundle again with this assetpack (`assetpack sign`)") == true)
        let meta = "/app.bundle/assetpack-meta/"
        #expect(await fixture.requests().map(\.path) == [meta + "identity", meta + "manifest.json", meta + "manifest.sig"],
                "fetched once: fetching again would not change the signature's form")
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file("installed")))
    }
}
