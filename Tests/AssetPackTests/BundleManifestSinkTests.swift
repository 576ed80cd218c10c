import Foundation
import Testing
import TestSupport
@testable import AssetPack
import AssetPackSystem

/// A bundle's manifest is read a run of entries at a time into a sink (``ManifestEntrySink``): the
/// planner plans from the runs as they come, never holding the entry list, and gets what it would get
/// from the manifest in hand.
@Suite struct BundleManifestSinkTests {
    /// Writes `manifest` as the packer lays it out into `folder`'s bookkeeping folder and reads it back
    /// through ``BundleManifest/read(from:)``.
    static func read(_ manifest: BundleManifest, in folder: String) throws -> BundleManifest? {
        try write(manifest.encodedJSON(), to: folder)
        return try BundleManifest.read(from: DirectorySource(root: folder))
    }

    static func write(_ bytes: [UInt8], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/assetpack-meta", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/assetpack-meta/manifest.json"))
    }

    /// Counts what it is handed.
    final class CountingSink: ManifestEntrySink {
        var runs = 0, entries: [BundleManifest.Entry] = []
        func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) {
            runs += 1
            self.entries += entries
        }
    }

    /// A manifest of more entries than a run (``ManifestReader/runSize``) reaches the sink in several runs,
    /// and the planner makes of them exactly the plan it makes of the manifest in hand.
    @Test func theStreamedPlanIsThePlanOfTheManifestInHand() throws {
        let scratch = try TemporaryDirectory("manifest-sink")
        let manifest = ManifestReaderTests.manifest(20_000)
        let bytes = try manifest.encodedJSON()
        #expect(bytes.count > ManifestReader.chunkSize)
        try Self.write(bytes, to: scratch.path)
        let source = DirectorySource(root: scratch.path)
        let sink = CountingSink()
        let located = try #require(try BundleManifest.locate(in: source, into: sink))
        #expect(sink.runs == (manifest.entries.count + ManifestReader.runSize - 1) / ManifestReader.runSize)
        #expect(sink.entries == manifest.entries && located.manifest.entries.isEmpty)
        #expect(located.manifest.identity == manifest.identity && located.manifest.packing == manifest.packing)

        let streamed = try ExpansionPlanner.plan(source)
        let inHand = try ExpansionPlanner.plan(PackedBundleSource(base: source, manifest: manifest))
        #expect(streamed.identity == inHand.identity && streamed.stamp == inHand.stamp && streamed.usesManifest)
        #expect(streamed.items.map(\.path) == inHand.items.map(\.path))
        #expect(streamed.items.map(\.size) == inHand.items.map(\.size) && streamed.items.map(\.crc32) == inHand.items.map(\.crc32))
        #expect(streamed.items.map(\.sha256) == inHand.items.map(\.sha256))
        #expect(streamed.fileCount == 20_000 && streamed.totalBytes == inHand.totalBytes)
    }

    /// Entries out of path order cannot have their identity computed as they come (nor be planned a window at
    /// a time): the manifest is refused, naming the first entry out of place, before any sink sees it.
    @Test func entriesOutOfOrderAreRefused() throws {
        let scratch = try TemporaryDirectory("manifest-sink-order")
        var manifest = ManifestReaderTests.manifest(300)
        manifest.entries.swapAt(10, 250)
        manifest.identity = ContentIdentity.of(manifest.entries)
        #expect(manifest.identity == ManifestReaderTests.manifest(300).identity)  // the order does not change it
        try Self.write(try manifest.encodedJSON(), to: scratch.path)
        let sink = CountingSink()
        let error = #expect(throws: AssetPackError.self) { try BundleManifest.locate(in: DirectorySource(root: scratch.path), into: sink) }
        #expect(error?.code == .manifest && sink.entries.isEmpty)
        #expect(error?.message == "the entries are not in path order: \"\(manifest.entries[11].path)\" comes after \"\(manifest.entries[10].path)\"")
        #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.path)) }
    }

    /// The running identity of runs in path order is the identity of the whole list, in both versions (with
    /// and without SHA-256s, whichever the first entries suggest); out of order it gives none.
    @Test func theRunningIdentityIsTheIdentityOfTheWhole() {
        let hashed = ManifestReaderTests.manifest(500).entries
        let plain = hashed.map { entry -> BundleManifest.Entry in
            var entry = entry
            entry.sha256 = nil
            return entry
        }
        var late = plain  // only one entry, late in the list, has a hash: version 2 for all
        late[400].sha256 = hashed[400].sha256
        for entries in [hashed, plain, late] {
            var running = ContentIdentity.Running()
            for start in stride(from: 0, to: entries.count, by: 77) { running.add(Array(entries[start..<min(start + 77, entries.count)])) }
            #expect(running.finalizeHex() == ContentIdentity.of(entries))
        }
        #expect(ContentIdentity.of(plain) != ContentIdentity.of(late) && ContentIdentity.of(late) != ContentIdentity.of(hashed))
        var shuffled = ContentIdentity.Running()
        shuffled.add(Array(hashed.reversed()))
        #expect(shuffled.finalizeHex() == nil && !shuffled.inOrder)
        #expect(ContentIdentity.of(hashed.reversed()) == ContentIdentity.of(hashed))
    }

    /// What the planner refuses in a manifest (here a name listed twice) is reported only once the manifest
    /// is known to be intact: the same entries under a wrong identity are reported as a damaged manifest.
    @Test func aForgedManifestIsReportedAsSuchWhateverItsEntries() throws {
        let scratch = try TemporaryDirectory("manifest-sink-forged")
        var entries = ManifestReaderTests.manifest(300).entries
        entries.insert(entries[120], at: 121)
        let intact = BundleManifest(threshold: 1, generator: "g", entries: entries)
        var forged = intact
        forged.identity = String(repeating: "0", count: 64)
        for (name, manifest) in [("intact", intact), ("forged", forged)] {
            try Self.write(try manifest.encodedJSON(), to: scratch.file(name))
        }
        let conflict = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("intact"))) }
        #expect(conflict?.code == .conflict && conflict?.message.contains("appears twice") == true)
        let damaged = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("forged"))) }
        #expect(damaged?.code == .manifest && damaged?.message.contains("identity does not match") == true)
    }
}
