import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Round trip: a bundle folder unpacks to exactly its source.
@Suite struct RoundTripTests {
    /// A tree with the awkward cases: Unicode names, empty folders, 0-byte files, deep nesting,
    /// executables, and files exactly at and one byte over the 1 MiB threshold.
    static func awkwardTree(_ dir: TemporaryDirectory) throws -> String {
        var random = SeededRandom(seed: 7)
        let src = dir.file("src")
        try dir.write("src/at-threshold.bin", random.bytes(1_048_576))
        try dir.write("src/over-threshold.bin", random.text(1_048_577))
        try dir.write("src/empty.txt", [])
        try dir.write("src/日本語/ことば.txt", text: "こんにちは")
        try dir.write("src/Ünïcödé/é.txt", text: "accents")
        try dir.write("src/emoji 🐸/frog.json", text: "{\"frog\": true}")
        try dir.write("src/" + (1...20).map { "d\($0)" }.joined(separator: "/") + "/deep.txt", text: "deep")
        try dir.write("src/tools/run.sh", text: "#!/bin/sh\necho hi\n")
        try chmod(dir.file("src/tools/run.sh"), 0o755)
        try mkdir(dir.file("src/empty-dir"))
        try mkdir(dir.file("src/nested/empty/also-empty"))
        return src
    }

    @Test func folderBundleReproducesTheSource() throws {
        let dir = try TemporaryDirectory("roundtrip")
        let src = try Self.awkwardTree(dir)
        let summary = try build(src, dir.file("out"))
        let manifest = try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(src))
        #expect(summary.packed == 1)
        #expect(summary.files == manifest.entries.count { $0.kind == .file })
        #expect(manifest.generator == "assetpack 0.1.0")
        #expect(manifest.threshold == 1_048_576)
        #expect(manifest.identity == ContentIdentity.of(manifest.entries))
        #expect(manifest.packing == PackingRules().fingerprint)
    }

    @Test func thresholdIsExclusive() throws {
        let dir = try TemporaryDirectory("threshold")
        let src = try Self.awkwardTree(dir)
        try build(src, dir.file("out"))
        let manifest = try readManifest(dir.file("out"))
        let at = try #require(manifest.entries.first { $0.path == "at-threshold.bin" })
        let over = try #require(manifest.entries.first { $0.path == "over-threshold.bin" })
        #expect(at.storage == .plain("at-threshold.bin"))
        #expect(over.storage?.form == .packed)
        #expect(over.storage?.file == "over-threshold.bin.zip")
        #expect(over.storage?.entry == "over-threshold.bin")
        #expect(FileManager.default.fileExists(atPath: dir.file("out/at-threshold.bin")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/over-threshold.bin")))
        #expect(try fileBytes(dir.file("out/at-threshold.bin")) == fileBytes(src + "/at-threshold.bin"))
    }

    @Test func manifestRecordsFoldersModesAndZeroByteFiles() throws {
        let dir = try TemporaryDirectory("manifest")
        let src = try Self.awkwardTree(dir)
        try build(src, dir.file("out"))
        let manifest = try readManifest(dir.file("out"))
        let byPath = Dictionary(uniqueKeysWithValues: manifest.entries.map { ($0.path, $0) })
        #expect(byPath["empty-dir"]?.kind == .directory)
        #expect(byPath["nested/empty/also-empty"]?.kind == .directory)
        #expect(byPath["empty.txt"]?.size == 0 && byPath["empty.txt"]?.crc32 == 0)
        #expect(byPath["tools/run.sh"]?.mode == 0o755)
        #expect(byPath["日本語/ことば.txt"]?.mode == nil)
        #expect(manifest.entries.map(\.path) == manifest.entries.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(try identityFileMatches(dir.file("out"), manifest))
        #expect(try snapshot(dir.file("out"))["empty-dir"] == .directory)
    }

    @Test func thresholdZeroPacksEveryFileIncludingEmptyOnes() throws {
        let dir = try TemporaryDirectory("zero")
        try dir.write("src/a.txt", text: "hello hello hello hello hello hello")
        try dir.write("src/empty", [])
        try build(dir.file("src"), dir.file("out"), threshold: 0)
        let manifest = try readManifest(dir.file("out"))
        #expect(manifest.entries.allSatisfy { $0.storage?.form == .packed })
        #expect(manifest.entries.first { $0.path == "empty" }?.storage?.method == "stored")
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(dir.file("src")))
    }

    @Test func sampleAssetsRoundTrip() throws {
        let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../assets").standardized.path
        let dir = try TemporaryDirectory("sample")
        let summary = try build(assets, dir.file("out"))
        #expect(summary.packed >= 1)
        let manifest = try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(assets))
        #expect(manifest.entries.contains { $0.path == "dictionary/words.txt" && $0.storage?.method == "deflate" })
    }
}
