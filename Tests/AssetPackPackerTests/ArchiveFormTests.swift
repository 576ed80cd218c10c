import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// --archive: the whole tree as one zip.
@Suite struct ArchiveFormTests {
    func buildArchive(_ source: String, _ output: String, threshold: UInt64 = PackingRules.defaultThreshold) throws -> BuildSummary {
        try Packer(options: BuildOptions(rules: PackingRules(threshold: threshold))).buildArchive(source: source, output: output)
    }

    @Test func archiveRoundTrip() throws {
        let dir = try TemporaryDirectory("archive")
        let src = try RoundTripTests.awkwardTree(dir)
        var random = SeededRandom(seed: 41)
        try dir.write("src/noise.bin", random.bytes(1_200_000))
        let summary = try buildArchive(src, dir.file("out.zip"))
        let manifest = try TestUnpacker.unpack(archive: dir.file("out.zip"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(src))
        #expect(manifest.entries.allSatisfy { $0.kind == .directory || $0.storage == .plain($0.path) })
        #expect(summary.packed == 2 && summary.stored == 1)
        let archive = try ZipArchive(path: dir.file("out.zip"))
        #expect(archive.entry(named: "empty-dir/")?.kind == .directory)
        #expect(archive.entry(named: "over-threshold.bin")?.method == .deflate)
        #expect(archive.entry(named: "noise.bin")?.method == .stored)
        #expect(archive.entry(named: "at-threshold.bin")?.method == .stored)
        #expect(archive.entry(named: "tools/run.sh")?.isExecutable == true)
        #expect(archive.entries.last?.name == BundleManifest.path)
    }

    @Test func archiveIsDeterministicAndReplacesOnlyBundles() throws {
        let dir = try TemporaryDirectory("archive2")
        let src = try RoundTripTests.awkwardTree(dir)
        _ = try buildArchive(src, dir.file("one.zip"))
        _ = try buildArchive(src, dir.file("two.zip"))
        #expect(try fileBytes(dir.file("one.zip")) == fileBytes(dir.file("two.zip")))
        _ = try buildArchive(src, dir.file("one.zip"))  // replacing a bundle archive is fine
        #expect(try fileBytes(dir.file("one.zip")) == fileBytes(dir.file("two.zip")))
        let other = try ZipWriter(path: dir.file("other.zip"))
        try other.addFile("x", contents: [1])
        try other.finish()
        let error = expectError { _ = try buildArchive(src, dir.file("other.zip")) }
        #expect(error?.code == .invalidArgument && error?.path == dir.file("other.zip"))
        #expect(expectError { _ = try buildArchive(src, src + "/inside.zip") }?.code == .invalidArgument)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)
    }
}
