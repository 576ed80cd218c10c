import AssetPack
import AssetPackZip
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Installing and upgrading a bundle from a real nginx (``RemoteBundle/install(into:trust:options:fetcher:log:)``):
/// the tree is right, only what changed crosses the network (asserted from nginx's access log), and a manifest
/// that is not trusted is refused before anything is written.
@Suite struct RemoteInstallTests {
    @Test func aFirstInstallWritesTheTreeAndAnUpToDateCheckIsOneRequest() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        let first = try await fixture.install()
        #expect(!first.upToDate)
        #expect(first.files == files.count)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let before = await fixture.requests().count
        let packs = Set(try readManifest(fixture.served).entries.compactMap { $0.storage?.file }.filter { $0.contains("/packs/") })
        let packRequests = await fixture.requests().filter { $0.path.contains("/assetpack-meta/packs/") }
        #expect(!packs.isEmpty && packRequests.count == packs.count, "one request per pack archive, not one per small file")
        let again = try await fixture.install()
        #expect(again.upToDate)
        let after = await fixture.site.server.requests(atLeast: before + 1)
        #expect(after.dropFirst(before).map(\.path) == ["/app.bundle/" + BundleManifest.identityPath])
    }

    /// Built over version 1, version 2 carries a patch for the large file's changed chunk, fetched instead of the chunk;
    /// built anew, it has none, and the chunk is fetched.
    @Test(arguments: [false, true])
    func anUpgradeFetchesOnlyTheChangedFileAndAPatchOrTheChangedChunk(anew: Bool) async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1))
        try await fixture.install()
        let version2 = RemoteInstallFixture.tree(version: 2)
        try fixture.publish(version2, anew: anew)
        let before = await fixture.requests().count
        let result = try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version2))
        #expect(result.filesLinked == version2.count - 2)
        let upgrade = Array(await fixture.requests().dropFirst(before))
        let paths = upgrade.map(\.path).sorted()
        let meta = ["identity", "manifest.json", "manifest.sig"].map { "/app.bundle/assetpack-meta/" + $0 }
        let pack = try fixture.requestPath(of: "text/0/f7.txt")
        let patches = try fixture.storage(of: "data/big.txt").patches
        #expect((patches == nil) == anew)
        let large = patches.map { "/app.bundle/" + $0.file } ?? "/app.bundle/data/big.txt.zip"
        #expect(paths == (meta + [large, pack]).sorted())
        let block = try #require(upgrade.first { $0.path == large })
        #expect(block.status == 206)
        #expect(block.bodyBytes < (anew ? 64 << 10 : 200), anew ? "one chunk of 16 KiB on average, deflated" : "a patch of 16 bytes")
        let member = try #require(upgrade.first { $0.path == pack })
        #expect(member.status == 206)
        #expect(member.bodyBytes == (try fixture.storage(of: "text/0/f7.txt")).compressedSize, "only the member's range of its pack")
        let manifestBytes = try fileBytes(fixture.served + "/" + BundleManifest.path).count
        let total = upgrade.reduce(0) { $0 + $1.bodyBytes }
        #expect(total < UInt64(manifestBytes) + (64 << 10) + 1024, "the manifest, one chunk or patch and one small file")
    }

    @Test func aChangedFileWithTheSameSizeAndCRC32IsFetchedNotKept() async throws {
        let fixture = try await RemoteInstallFixture()
        var files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files)
        try await fixture.install()
        let original = try #require(files["text/1/f9.txt"])
        var other = original
        other.replaceSubrange(0..<12, with: Array("FORGED BYTES".utf8))
        files["text/1/f9.txt"] = CRCForgery.matching(other, crc32: CRC32.checksum(original))
        #expect(CRC32.checksum(files["text/1/f9.txt"]!) == CRC32.checksum(original))
        try fixture.publish(files)
        let before = await fixture.requests().count
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
        let fetched = await fixture.requests().dropFirst(before)
        let pack = try fixture.requestPath(of: "text/1/f9.txt")
        #expect(fetched.contains { $0.path == pack && $0.bodyBytes == (try? fixture.storage(of: "text/1/f9.txt"))?.compressedSize })
    }

    @Test(arguments: ["tampered manifest", "other key", "no signature"])
    func aManifestThatIsNotTrustedIsRefusedBeforeAnythingIsWritten(_ case: String) async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(RemoteInstallFixture.tree(version: 1), sign: `case` != "no signature")
        if `case` == "tampered manifest" {
            var manifest = try fileBytes(fixture.served + "/" + BundleManifest.path)
            manifest[manifest.count / 2] ^= 0x01
            try Data(manifest).write(to: URL(fileURLWithPath: fixture.served + "/" + BundleManifest.path))
        }
        let trust = `case` == "other key" ? ManifestTrust.signed(by: [SigningKey.generate().publicKey])
            : .signed(by: [RemoteInstallFixture.key.publicKey])
        let error = await expectFailure { try await fixture.install(trust: trust) }
        #expect(error?.code == .untrusted)
        #expect(error?.path == fixture.url.absoluteString + "/" + BundleManifest.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path).filter { $0 != "installed" && !$0.hasPrefix("src-") } == [])
        #expect(!FileManager.default.fileExists(atPath: fixture.scratch.file("installed")))
        let fetched = await fixture.requests().map(\.path)
        #expect(!fetched.contains { !$0.contains("/assetpack-meta/") }, "nothing but the manifest and its signature: \(fetched)")
    }

    @Test func aPinnedIdentityIsAccepted() async throws {
        let fixture = try await RemoteInstallFixture()
        let files = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(files, sign: false)
        let identity = String(decoding: try fileBytes(fixture.served + "/" + BundleManifest.identityPath), as: UTF8.self)
        try await fixture.install(trust: .pinned(identity: try #require(ContentHash(hex: identity))))
        #expect(try snapshot(fixture.destination) == expectedSnapshot(files))
    }

    @Test func aTamperedFileIsAnErrorAndThePreviousTreeStays() async throws {
        let fixture = try await RemoteInstallFixture()
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        try await fixture.install()
        try fixture.publish(RemoteInstallFixture.tree(version: 2))
        let storage = try fixture.storage(of: "text/0/f7.txt")
        let pack = fixture.served + "/" + storage.file
        var tampered = try fileBytes(pack)
        let last = Int(try #require(storage.dataOffset) + (try #require(storage.compressedSize))) - 1
        tampered[last] ^= 0x20  // the member's last byte: for a stored member a changed byte, for a deflated one its checks fail
        try Data(tampered).write(to: URL(fileURLWithPath: pack))
        let error = await expectFailure { try await fixture.install() }
        #expect(error?.code == .verification)
        #expect(error?.path == fixture.url.absoluteString + "/" + storage.file)
        #expect(error?.message.contains("\"text/0/f7.txt\": CRC-32 mismatch: expected ") == true, "\(String(describing: error))")
        #expect(try snapshot(fixture.destination) == expectedSnapshot(version1))
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.file("installed"))
        #expect(left == ["assets"], "no staging tree is kept for a bundle that cannot give the tree")
    }

    @Test func aBundleReplacedOnTheServerMidInstallGivesTheOldOrTheNewTreeNeverASplicedFile() async throws {
        let replaced = Flag()
        let holder = Holder()
        let fixture = try await RemoteInstallFixture(faults: { _ in .none }, onRequest: { number in
            guard number == 4, replaced.set() else { return }
            _ = try? holder.fixture?.publish(RemoteInstallFixture.tree(version: 3))
        })
        holder.fixture = fixture
        let version1 = RemoteInstallFixture.tree(version: 1)
        try fixture.publish(version1)
        // Bytes of version 3 fail the checks of version 1's manifest: the install starts over from the new one.
        try await fixture.install()
        let installed = try snapshot(fixture.destination)
        let old = try expectedSnapshot(version1), new = try expectedSnapshot(RemoteInstallFixture.tree(version: 3))
        #expect(installed == old || installed == new)
        #expect(replaced.isSet)
    }
}

/// A flag set once, from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    /// Sets it; true the first time.
    func set() -> Bool { lock.withLock { defer { value = true }; return !value } }
    var isSet: Bool { lock.withLock { value } }
}

/// A fixture a callback made before it reaches; weak, since the fixture's proxy holds the callback (a strong
/// reference would keep the fixture, and its nginx, alive after the test).
final class Holder: @unchecked Sendable {
    weak var fixture: RemoteInstallFixture?
    /// A bundle to serve later (set before the install starts).
    var next: String?
}

/// Makes bytes with a chosen CRC-32 by rewriting their last 4 bytes: how easy it is to forge one, and why an
/// upgrade compares SHA-256s (the CRC-32 register is run backwards through the table, "Reversing CRC",
/// Stigge et al., 2006).
enum CRCForgery {
    /// `bytes` (at least 4) with their last 4 bytes replaced so that their CRC-32 is `crc32`.
    static func matching(_ bytes: [UInt8], crc32 target: UInt32) -> [UInt8] {
        let table = (0..<256).map { index -> UInt32 in
            (0..<8).reduce(UInt32(index)) { value, _ in value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        }
        let prefix = Array(bytes.dropLast(4))
        var register = ~target
        for _ in 0..<4 {
            let index = table.firstIndex { $0 >> 24 == register >> 24 }!
            register = ((register ^ table[index]) << 8) | UInt32(index)
        }
        let patch = register ^ ~CRC32.checksum(prefix)
        return prefix + (0..<4).map { UInt8(truncatingIfNeeded: patch >> (8 * $0)) }
    }
}
