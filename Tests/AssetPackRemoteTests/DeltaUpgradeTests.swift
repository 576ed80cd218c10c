@testable import AssetPack
@testable import AssetPackRemote
import Foundation
import Testing
import TestSupport

/// Upgrades from a real nginx that fetch only what changed, by content (issue #34): a large file with bytes
/// inserted or changed here and there takes the chunks the installed copy still holds, at any offset; renamed
/// and moved files are linked from where they were; a seed folder lends chunks to a fresh install; an upgrade
/// cut short goes on with the chunks it has. Each ends in the exact tree, and fetches what its dry run announced.
@Suite(ExternalTool.nginx.needed)
struct DeltaUpgradeTests {
    /// The tree of the fixture, version 1.
    static let base = RemoteInstallFixture.tree(version: 1)

    /// Publishes and installs `before`, publishes `after` and upgrades to it: the upgrade's dry run, checked against
    /// what the install fetched (``UpdateSizeTests/expectInstallFetchesWhatItsDryRunAnnounced(_:sourceLocation:)``).
    func upgrade(from before: [String: [UInt8]], to after: [String: [UInt8]],
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> (InstallPreview, RemoteInstallFixture) {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(before)
        try await fixture.install()
        try fixture.publish(after)
        let preview = try await UpdateSizeTests.expectInstallFetchesWhatItsDryRunAnnounced(fixture, sourceLocation: sourceLocation)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after), sourceLocation: sourceLocation)
        return (preview, fixture)
    }

    @Test func bytesInsertedAtTheStartOfALargeFileFetchOneOrTwoChunks() async throws {
        var after = Self.base
        after["data/big.txt"] = Array(repeating: UInt8(ascii: "#"), count: 1000) + after["data/big.txt"]!
        let (preview, fixture) = try await upgrade(from: Self.base, to: after)
        let name = try #require(try fixture.storage(of: "data/big.txt").chunking)
        let chunk = try #require(ContentChunking(name: name))
        let size = try fixture.bundleSize()
        #expect(preview.requestsToFetch == 1 && (preview.bytesToFetch ?? .max) < UInt64(2 * chunk.maximum),
                "one range of the chunks around the insertion, of \(size) bytes: \(preview)")
    }

    @Test func bytesChangedHereAndThereInAStoredFileFetchTheChunksAroundEach() async throws {
        var after = Self.base
        var random = SeededRandom(seed: 71)
        var clip = after["media/clip.bin"]!
        for offset in [10_000, 70_000, 130_000, 190_000] { clip.replaceSubrange(offset..<offset + 100, with: random.bytes(100)) }
        after["media/clip.bin"] = clip
        let (preview, fixture) = try await upgrade(from: Self.base, to: after)
        let storage = try fixture.storage(of: "media/clip.bin")
        #expect(storage.method == "stored" && (storage.blocks?.count ?? 0) > 8)
        let name = try #require(storage.chunking)
        let chunk = try #require(ContentChunking(name: name))
        #expect((preview.bytesToFetch ?? .max) <= UInt64(4 * 2 * chunk.maximum) && (preview.bytesToFetch ?? .max) < 200_000 / 2,
                "the chunks around four edits of 100 bytes: \(preview)")
    }

    @Test func renamedAndMovedFilesAreLinkedNotFetched() async throws {
        var after = Self.base
        for (old, new) in [("data/big.txt", "data/big-renamed.txt"), ("media/clip.bin", "moved/clip.bin"),
                           ("text/0/f1.txt", "text/0/f1-renamed.txt"), ("text/1/f9.txt", "moved/deeper/f9.txt")] {
            after[new] = after.removeValue(forKey: old)
        }
        let (preview, fixture) = try await upgrade(from: Self.base, to: after)
        #expect(preview.bytesToFetch == 0 && preview.requestsToFetch == 0, "only the manifest changed: \(preview)")
        #expect(preview.filesLinked == after.count, "every file is linked, those renamed or moved too")
        // Each moved file is a link to the installed one (the same bytes, no copy).
        let record = try recordText(ofTree: fixture.destination)
        #expect(record.contains("moved/clip.bin") && !record.contains("\"media/clip.bin\""))
    }

    @Test func anUpgradeInPlaceFetchesWhatItsDryRunAnnouncedAndGivesTheExactTree() async throws {
        var after = Self.base
        after["data/big.txt"] = Array("a new first line\n".utf8) + after["data/big.txt"]!
        after["moved/deeper/f9.txt"] = after.removeValue(forKey: "text/1/f9.txt")
        after["text/0/f1-renamed.txt"] = after.removeValue(forKey: "text/0/f1.txt")
        after["text/0/f2.txt"] = nil
        after["added/new.txt"] = Array("new in 2".utf8)
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(Self.base)
        try await fixture.install()
        let renamed = inodeNumber(fixture.destination + "/text/1/f9.txt")
        let unchanged = inodeNumber(fixture.destination + "/media/clip.bin")
        try fixture.publish(after)
        let preview = try UpdateSizeTests.dryRun(fixture)
        let before = await fixture.settledRequests().count
        let result = try await fixture.install(durability: .flushOnCommit, inPlace: true)
        let fetched = await fixture.settledRequests().dropFirst(before).filter { !UpdateSizeTests.isPointer($0) }
        #expect(preview.bytesToFetch == UpdateSizeTests.bytes(fetched) && preview.requestsToFetch == fetched.count)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after))
        #expect(inodeNumber(fixture.destination + "/moved/deeper/f9.txt") == renamed, "moved in, not fetched")
        #expect(inodeNumber(fixture.destination + "/media/clip.bin") == unchanged)
        #expect(result.filesLinked == after.count - 2, "all but the changed file and the new one: \(result)")
        #expect(hiddenNames(fixture.scratch.path).allSatisfy { !$0.contains("staging") }, "\(hiddenNames(fixture.scratch.path))")
    }

    @Test func aSeedFolderLendsItsChunksToAFreshInstall() async throws {
        let fixture = try await RemoteInstallFixture()
        var after = Self.base
        after["data/big.txt"] = Array("a new first line\n".utf8) + after["data/big.txt"]!
        try fixture.publish(after)
        let seed = fixture.scratch.file("seed")
        for (path, bytes) in Self.base where path.hasPrefix("data/") || path.hasPrefix("media/") {
            try FileManager.default.createDirectory(atPath: (seed + "/" + path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: seed + "/" + path))
        }
        var options = testOptions()
        let plain = try RemoteBundle(fixture.url).dryRun(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                                        fetcher: RemoteFetcher(options: options))
        options.seedFolders = [seed]
        let seeded = try RemoteBundle(fixture.url).dryRun(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                                         fetcher: RemoteFetcher(options: options))
        let before = await fixture.settledRequests().count
        try await fixture.install(options: options)
        let fetched = await fixture.settledRequests().dropFirst(before).filter { !UpdateSizeTests.isPointer($0) }
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after))
        #expect(seeded.bytesToFetch == UpdateSizeTests.bytes(fetched) && seeded.requestsToFetch == fetched.count)
        let big = try #require(try fixture.storage(of: "data/big.txt").compressedSize)
        let clip = UInt64(try #require(after["media/clip.bin"]).count)
        #expect((plain.bytesToFetch ?? 0) > big + clip && (seeded.bytesToFetch ?? .max) + big + clip - 100_000 < (plain.bytesToFetch ?? 0),
                "the seed lends all of the clip and all of the large file but its first chunk: \(seeded) against \(plain)")
        #expect(FileManager.default.fileExists(atPath: seed + "/data/big.txt"), "a seed is read, never moved")
    }

    @Test func anUpgradeCutShortGoesOnWithTheChunksItHas() async throws {
        let threshold = FaultThreshold()
        let fixture = try await RemoteInstallFixture(faults: { number in number >= threshold.value ? .status(500) : .none })
        try fixture.publish(Self.base)
        try await fixture.install()
        var after = Self.base
        var random = SeededRandom(seed: 72)
        var big = after["data/big.txt"]!
        for offset in stride(from: 50_000, to: big.count, by: 250_000) { big.replaceSubrange(offset..<offset + 20, with: random.text(20)) }
        after["data/big.txt"] = big
        try fixture.publish(after, anew: true)  // no previous bundle, so no patches: chunks only
        try await Self.cutShortAndResumed(fixture, threshold, to: after, maxRequestBytes: 64 << 10, atLeast: 8, what: "chunk")
    }

    /// Upgrades `fixture` (installed, the next version `after` published) with a request per `what` (at most
    /// `maxRequestBytes` a request; the dry run counts `atLeast` of them), the server failing after the first four:
    /// the run ends in a network error, and the next one gives the exact tree, keeps bytes, and fetches nothing twice.
    static func cutShortAndResumed(_ fixture: RemoteInstallFixture, _ threshold: FaultThreshold, to after: [String: [UInt8]],
                                   maxRequestBytes: UInt64, atLeast: Int, what: String,
                                   sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var options = testOptions(attempts: 1, concurrency: 1)
        options.maxRequestBytes = maxRequestBytes
        let plan = try RemoteBundle(fixture.url).dryRun(into: fixture.destination, trust: .signed(by: [RemoteInstallFixture.key.publicKey]),
                                                       fetcher: RemoteFetcher(options: options))
        #expect((plan.requestsToFetch ?? 0) >= atLeast, "one request per \(what): \(plan)", sourceLocation: sourceLocation)
        let before = await fixture.settledRequests().count
        threshold.value = before + 3 + 4  // the pointers, then four requests
        let error = await expectFailure { try await fixture.install(options: options) }
        #expect(error?.code == .network, sourceLocation: sourceLocation)
        threshold.value = .max
        let result = try await fixture.install(options: options)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after), sourceLocation: sourceLocation)
        #expect(result.bytesResumed > 0, sourceLocation: sourceLocation)
        let data = await fixture.settledRequests().dropFirst(before).filter { !UpdateSizeTests.isPointer($0) && $0.status == 206 }
        #expect(UpdateSizeTests.bytes(data) == plan.bytesToFetch, "no \(what) is fetched twice", sourceLocation: sourceLocation)
    }
}

/// Upgrades that take a changed file's patches from the bundle it was built over (``BundleManifest/Storage/patches``)
/// instead of its chunks: many small edits cost about their own bytes; a patch for another version than the local
/// copy's falls back to the chunks; an upgrade cut short goes on with the patches it applied.
@Suite(ExternalTool.nginx.needed)
struct PatchUpgradeTests {
    /// Version 1 with `count` edits of 100 bytes of new text, spread through the large file.
    static func edited(_ count: Int, seed: UInt64) -> [String: [UInt8]] {
        var files = DeltaUpgradeTests.base
        var random = SeededRandom(seed: seed)
        var big = files["data/big.txt"]!
        for offset in stride(from: 40_000, to: big.count, by: big.count / count).prefix(count) {
            big.replaceSubrange(offset..<offset + 100, with: random.text(100))
        }
        files["data/big.txt"] = big
        return files
    }

    @Test func scatteredEditsFetchPatchesAboutAsLargeAsTheEdits() async throws {
        let after = Self.edited(20, seed: 81)
        let (preview, fixture) = try await DeltaUpgradeTests().upgrade(from: DeltaUpgradeTests.base, to: after)
        let patches = try #require(try fixture.storage(of: "data/big.txt").patches, "the build over version 1 wrote patches")
        var base = SHA256()
        base.update(DeltaUpgradeTests.base["data/big.txt"]!)
        #expect(patches.runs.count >= 15 && patches.baseSHA256 == base.finalizeHex())
        #expect(preview.requestsToFetch == 1 && (preview.bytesToFetch ?? .max) < 20 * 250,
                "one request for twenty patches of about a hundred bytes each: \(preview)")
    }

    @Test func aPatchForAnotherVersionFallsBackToTheChunks() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(DeltaUpgradeTests.base)
        let after = Self.edited(4, seed: 82)
        try fixture.publish(after)
        // A seed as long as version 1, but not version 1: every patch makes the wrong bytes.
        var other = DeltaUpgradeTests.base["data/big.txt"]!
        for offset in stride(from: 0, to: other.count, by: 4096) { other[offset] ^= 0x20 }
        let seed = fixture.scratch.file("seed")
        try FileManager.default.createDirectory(atPath: seed + "/data", withIntermediateDirectories: true)
        try Data(other).write(to: URL(fileURLWithPath: seed + "/data/big.txt"))
        var options = testOptions()
        options.seedFolders = [seed]
        let before = await fixture.settledRequests().count
        try await fixture.install(options: options)
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after))
        let fetched = await fixture.settledRequests().dropFirst(before).map(\.path)
        let patches = try #require(try fixture.storage(of: "data/big.txt").patches)
        #expect(fetched.contains { $0.contains(patches.file) }, "the patches were tried: \(fetched)")
        #expect(FileManager.default.contents(atPath: seed + "/data/big.txt") == Data(other), "a seed is read, never written")
    }

    @Test func aMissingPatchFileFallsBackToTheChunks() async throws {
        let fixture = try await RemoteInstallFixture()
        try fixture.publish(DeltaUpgradeTests.base)
        try await fixture.install()
        let after = Self.edited(4, seed: 84)
        try fixture.publish(after)
        let patches = try #require(try fixture.storage(of: "data/big.txt").patches)
        try FileManager.default.moveItem(atPath: fixture.served + "/" + patches.file, toPath: fixture.scratch.file("patches-aside"))
        let before = await fixture.settledRequests().count
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after))
        let fetched = await fixture.settledRequests().dropFirst(before)
        #expect(fetched.contains { $0.path.hasSuffix(patches.file) && $0.status == 404 }, "the patches were asked for: \(fetched)")
        #expect(fetched.contains { $0.status == 206 && !$0.path.contains("patches") }, "then the chunks: \(fetched)")
    }

    @Test func anUpgradeCutShortGoesOnWithThePatchesItApplied() async throws {
        let threshold = FaultThreshold()
        let fixture = try await RemoteInstallFixture(faults: { number in number >= threshold.value ? .status(500) : .none })
        try fixture.publish(DeltaUpgradeTests.base)
        try await fixture.install()
        let after = Self.edited(12, seed: 83)
        try fixture.publish(after)
        try await DeltaUpgradeTests.cutShortAndResumed(fixture, threshold, to: after, maxRequestBytes: 1, atLeast: 10, what: "patch")
    }
}

/// Upgrades into a file system whose files can share blocks (XFS, Btrfs: ``ReflinkFolder``): the staging copy of a
/// changed file starts as a clone of the installed one, so what did not change is neither copied nor written, whether
/// the upgrade takes patches or chunks; the installed version is never touched.
@Suite(ExternalTool.nginx.needed, ReflinkFolder.needed)
struct CloneUpgradeTests {
    @Test(arguments: [false, true])
    func anUpgradeWritesLittleMoreThanWhatChanged(anew: Bool) async throws {
        let folder = try ReflinkFolder.require()
        let fixture = try await RemoteInstallFixture()
        let here = folder + "/clone-upgrade-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: here) }
        fixture.destination = here + "/assets"
        try fixture.publish(DeltaUpgradeTests.base)
        try await fixture.install()
        // A link to the installed version keeps its blocks, so that the new version's shared ones can be counted.
        try FileManager.default.linkItem(atPath: fixture.destination + "/data/big.txt", toPath: here + "/version-1")
        let after = PatchUpgradeTests.edited(8, seed: 85)
        try fixture.publish(after, anew: anew)  // anew: no patches, the chunks around each edit are fetched
        try await fixture.install()
        #expect(try snapshot(fixture.destination) == expectedSnapshot(after))
        #expect(FileManager.default.contents(atPath: here + "/version-1") == Data(DeltaUpgradeTests.base["data/big.txt"]!),
                "the installed version is never written")
        let shared = try ReflinkFolder.sharedFraction(of: fixture.destination + "/data/big.txt")
        #expect(shared >= (anew ? 0.8 : 0.95), "eight edits of 100 bytes in 3 MiB leave most blocks shared: \(shared)")
    }
}

/// The request number from which the fault proxy fails requests; settable from the test.
final class FaultThreshold: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = Int.max
    var value: Int {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
