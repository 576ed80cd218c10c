import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Stored or deflated: incompressible files are stored inside their zip.
@Suite struct CompressionChoiceTests {
    @Test func randomIsStoredTextIsDeflated() throws {
        let dir = try TemporaryDirectory("method")
        var random = SeededRandom(seed: 11)
        try dir.write("src/video.mp4", random.bytes(1_500_000))
        try dir.write("src/words.txt", random.text(1_500_000))
        let summary = try build(dir.file("src"), dir.file("out"))
        let manifest = try readManifest(dir.file("out"))
        let video = try #require(manifest.entries.first { $0.path == "video.mp4" }?.storage)
        let words = try #require(manifest.entries.first { $0.path == "words.txt" }?.storage)
        #expect(video.method == "stored" && video.compressedSize == 1_500_000)
        #expect(words.method == "deflate" && (words.compressedSize ?? .max) < 1_000_000)
        #expect(summary.packed == 2 && summary.stored == 1)
        let archive = try ZipArchive(path: dir.file("out/video.mp4.zip"))
        #expect(archive.entries.first?.method == .stored)
    }

    @Test func aCompressibleHeaderDoesNotFoolTheRule() throws {
        // A text header, then random data: the sample sees some text and says deflate, but the whole file
        // saves under 2%, so it ends up stored.
        var random = SeededRandom(seed: 12)
        let dir = try TemporaryDirectory("mixed")
        try dir.write("src/mixed.bin", random.text(65_536) + random.bytes(3_000_000))
        try build(dir.file("src"), dir.file("out"))
        let storage = try #require(readManifest(dir.file("out")).entries.first?.storage)
        #expect(storage.method == "stored")
    }

    @Test func wholeFileCheckStoresWhenTheSampleWasWrong() throws {
        // Compressible where the probe samples (4 KiB chunks here), random everywhere else: the sample says
        // deflate, the whole file saves under 2%, and the archive is rewritten stored.
        var rules = PackingRules()
        rules.sampleChunkSize = 4096
        var random = SeededRandom(seed: 13)
        let size = 2 * 1024 * 1024
        var data = random.bytes(size)
        let probe = CompressibilityProbe(rules: rules)
        for offset in probe.sampleOffsets(size: UInt64(size)) {
            let start = Int(offset)
            data.replaceSubrange(start..<start + rules.sampleChunkSize, with: [UInt8](repeating: 0x41, count: rules.sampleChunkSize))
        }
        let dir = try TemporaryDirectory("whole")
        try dir.write("src/tricky.bin", data)
        #expect(try probe.worthDeflating(dir.file("src/tricky.bin"), size: UInt64(size)))
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: dir.file("src"), output: dir.file("out"))
        let storage = try #require(readManifest(dir.file("out")).entries.first?.storage)
        #expect(storage.method == "stored")
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try fileBytes(dir.file("back/tricky.bin")) == data)
    }

    @Test func levelZeroStoresEverything() throws {
        let dir = try TemporaryDirectory("level0")
        var random = SeededRandom(seed: 14)
        try dir.write("src/words.txt", random.text(200_000))
        try build(dir.file("src"), dir.file("out"), threshold: 1024, level: 0)
        #expect(try readManifest(dir.file("out")).entries.first?.storage?.method == "stored")
    }

    @Test func probeOffsetsCoverStartAndEnd() {
        let probe = CompressibilityProbe(rules: PackingRules())
        #expect(probe.sampleOffsets(size: 100) == [0])
        #expect(probe.sampleOffsets(size: 200_000) == [0, 65_536, 131_072, 196_608])
        let offsets = probe.sampleOffsets(size: 10_000_000)
        #expect(offsets.count == 4 && offsets.first == 0 && offsets.last == 10_000_000 - 65_536)
    }
}
