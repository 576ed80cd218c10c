@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Chunk patches (``ChunkPatch``, ``PatchDiff``, ``PatchMaker``): the instructions found for a changed run make its
/// bytes again from the previous version, are about as large as what changed, read the same in pieces of any size,
/// and a damaged or hostile patch is refused, never followed out of the previous version or past its chunks.
@Suite struct ChunkPatchTests {
    /// The bytes `patch` makes from `old`, its instructions handed over in pieces of `piece` bytes.
    static func apply(_ patch: [UInt8], to old: [UInt8], outputSize: Int, piece: Int = .max) throws -> [UInt8] {
        var reader = ChunkPatch.Reader(outputSize: UInt64(outputSize), baseSize: UInt64(old.count))
        var made: [UInt8] = []
        var start = 0
        repeat {
            let end = min(patch.count, start + piece)
            var failure: AssetPackError?
            Array(patch[start..<end]).withUnsafeBytes { bytes in
                do throws(AssetPackError) {
                    try reader.read(bytes) { instruction in
                        switch instruction {
                        case .literal(let bytes): made += bytes
                        case .copy(let from, let length): made += old[Int(from)..<Int(from + length)]
                        }
                    }
                } catch { failure = error }
            }
            if let failure { throw failure }
            start = end
        } while start < patch.count
        guard reader.isComplete else { throw AssetPackError(.verification, "incomplete") }
        return made
    }

    /// The instructions making `new` from all of `old`.
    static func diff(_ new: [UInt8], _ old: [UInt8]) -> ChunkPatch.Writer {
        new.withUnsafeBytes { new in old.withUnsafeBytes { old in PatchDiff.instructions(new: new, old: old, oldOffset: 0) } }
    }

    @Test(arguments: [1, 7, 4096])
    func editsInsertionsDeletionsAndMovesAreMadeAgain(piece: Int) throws {
        var random = SeededRandom(seed: 91)
        let old = random.text(300_000)
        var new = old
        new.replaceSubrange(10_000..<10_100, with: random.bytes(100))        // an edit
        new.insert(contentsOf: random.bytes(37), at: 50_000)                  // an insertion
        new.removeSubrange(120_000..<121_000)                                 // a deletion
        new += old[200_000..<260_000]                                         // a stretch moved to the end
        let patch = Self.diff(new, old)
        #expect(patch.outputSize == UInt64(new.count))
        #expect(try Self.apply(patch.bytes, to: old, outputSize: new.count, piece: piece) == new)
        #expect(patch.bytes.count < 100 + 37 + 200, "about the new bytes and a few instructions: \(patch.bytes.count)")
    }

    @Test func unrelatedBytesAreWrittenAsTheyAre() throws {
        var random = SeededRandom(seed: 92)
        let (old, new) = (random.bytes(50_000), random.bytes(40_000))
        let patch = Self.diff(new, old)
        #expect(try Self.apply(patch.bytes, to: old, outputSize: new.count) == new)
        #expect(patch.bytes.count <= new.count + 8)
        #expect(try Self.apply(Self.diff([], old).bytes, to: old, outputSize: 0) == [])
    }

    @Test func aHostilePatchIsRefused() throws {
        let old = Array(repeating: UInt8(ascii: "a"), count: 1000)
        var copyPastTheEnd = ChunkPatch.Writer()
        [UInt8]().withUnsafeBytes { copyPastTheEnd.append(literal: $0, copyFrom: 900, copyLength: 200) }
        var tooLong = ChunkPatch.Writer()
        Array("0123456789".utf8).withUnsafeBytes { tooLong.append(literal: $0, copyFrom: 0, copyLength: 0) }
        let cases: [(String, [UInt8], Int)] = [
            ("a copy past the previous version", copyPastTheEnd.bytes, 200),
            ("more bytes than the chunks", tooLong.bytes, 5),
            ("bytes after the last instruction", tooLong.bytes + [0, 0], 10),
            ("a number longer than 64 bits", Array(repeating: 0xFF, count: 11), 10),
            ("too few bytes", tooLong.bytes, 11),
        ]
        for (what, patch, size) in cases {
            #expect(throws: AssetPackError.self, "\(what)") { try Self.apply(patch, to: old, outputSize: size) }
        }
    }

    @Test func aBuildOverThePreviousBundleWritesPatchesThatMakeTheNewChunks() throws {
        let dir = try TemporaryDirectory("chunk-patches")
        var random = SeededRandom(seed: 93)
        var big = random.text(2_000_000)
        try dir.write("src/big.txt", big)
        try dir.write("src/noise.bin", random.bytes(600_000))
        try build(dir.file("src"), dir.file("out"))
        let before = big
        for offset in stride(from: 100_000, to: big.count, by: 400_000) { big.replaceSubrange(offset..<offset + 50, with: random.text(50)) }
        try dir.write("src/big.txt", big)
        try build(dir.file("src"), dir.file("out"))
        let entry = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "big.txt" })
        let storage = try #require(entry.storage)
        let patches = try #require(storage.patches)
        #expect(try readManifest(dir.file("out")).entries.first { $0.path == "noise.bin" }?.storage?.patches == nil)
        #expect(patches.baseSize == UInt64(before.count) && patches.runs.count == 5)
        // Each patch, inflated and applied to the previous version, makes exactly its chunks.
        let file = try fileBytes(dir.file("out/" + patches.file))
        let spans = try DeflateBlockIndex(pairs: try #require(storage.blocks))
            .spans(uncompressedSize: entry.size!, compressedSize: storage.compressedSize!)
        for run in patches.runs {
            let made = try inflate(Array(file[Int(run[2])..<Int(run[2] + run[3])]))
            let output = spans[Int(run[0])].uncompressed.lowerBound..<spans[Int(run[0] + run[1]) - 1].uncompressed.upperBound
            #expect(try Self.apply(made, to: before, outputSize: output.count) == Array(big[Int(output.lowerBound)..<Int(output.upperBound)]))
            #expect(run[3] < 200, "a patch of about 50 new bytes: \(run[3])")
        }
        // `verify` reads every patch; a damaged or missing patch file fails it, naming the file.
        #expect(try BundleVerification.verify(DirectorySource(root: dir.file("out"))).patches == 5)
        var damaged = file
        damaged[Int(patches.runs[2][2]) + 3] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: dir.file("out/" + patches.file)))
        let broken = expectError { _ = try BundleVerification.verify(DirectorySource(root: dir.file("out"))) }
        #expect(broken?.code == .verification && broken?.path?.contains(patches.file) == true, "\(String(describing: broken))")
        try FileManager.default.removeItem(atPath: dir.file("out/" + patches.file))
        let missing = expectError { _ = try BundleVerification.verify(DirectorySource(root: dir.file("out"))) }
        #expect(missing?.code == .manifest && missing?.message.contains("lacks") == true, "\(String(describing: missing))")
        try Data(file).write(to: URL(fileURLWithPath: dir.file("out/" + patches.file)))
        // Built again unchanged, the file keeps its patches (a client still on the version before gets them).
        try build(dir.file("src"), dir.file("out"))
        let kept = try readManifest(dir.file("out")).entries.first { $0.path == "big.txt" }?.storage?.patches
        #expect(kept == patches && FileManager.default.fileExists(atPath: dir.file("out/" + patches.file)))
    }

    @Test func withImmutableNamesThePatchFileIsAnObjectNamedByItsBytes() throws {
        let dir = try TemporaryDirectory("chunk-patches-objects")
        var random = SeededRandom(seed: 94)
        var big = random.text(1_500_000)
        try dir.write("src/big.txt", big)
        var options = BuildOptions()
        options.immutableNames = true
        _ = try Packer(options: options).build(source: dir.file("src"), output: dir.file("out"))
        big.replaceSubrange(700_000..<700_040, with: random.text(40))
        try dir.write("src/big.txt", big)
        _ = try Packer(options: options).build(source: dir.file("src"), output: dir.file("out"))
        let patches = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "big.txt" }?.storage?.patches)
        let bytes = try fileBytes(dir.file("out/" + patches.file))
        var hash = SHA256()
        hash.update(bytes)
        #expect(patches.file == ObjectNames.folder + "/" + hash.finalizeHex())
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/" + PatchMaker.folder)), "no other folder than the objects")
    }

    /// The bytes of a raw deflate stream.
    func inflate(_ compressed: [UInt8]) throws -> [UInt8] {
        let inflater = try Inflater()
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let step = try compressed.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try inflater.inflate(input, into: $0) }
        }
        #expect(step.finished)
        return Array(output[..<step.produced])
    }
}
