import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Incremental rebuilds reuse unchanged archives.
@Suite struct IncrementalTests {
    static func tree(_ dir: TemporaryDirectory) throws {
        var random = SeededRandom(seed: 51)
        try dir.write("src/keep/big.txt", random.text(1_400_000))
        try dir.write("src/change/big.txt", random.text(1_400_000))
        try dir.write("src/noise.bin", random.bytes(1_100_000))
        try dir.write("src/small.txt", text: "small")
    }

    @Test func unchangedArchivesAreHardLinkedChangedOnesRepacked() throws {
        let dir = try TemporaryDirectory("incremental")
        try Self.tree(dir)
        let first = try build(dir.file("src"), dir.file("out"))
        #expect(first.reused == 0 && first.packed == 3)
        let keptInode = inodeNumber(dir.file("out/keep/big.txt.zip"))
        let noiseInode = inodeNumber(dir.file("out/noise.bin.zip"))
        let changedInode = inodeNumber(dir.file("out/change/big.txt.zip"))
        // Same size, different bytes: only a content check can tell.
        var changed = try fileBytes(dir.file("src/change/big.txt"))
        changed[700_000] ^= 0x20
        try dir.write("src/change/big.txt", changed)
        let second = try build(dir.file("src"), dir.file("out"))
        #expect(second.reused == 2)
        #expect(inodeNumber(dir.file("out/keep/big.txt.zip")) == keptInode)
        #expect(inodeNumber(dir.file("out/noise.bin.zip")) == noiseInode)
        #expect(inodeNumber(dir.file("out/change/big.txt.zip")) != changedInode)
        // The incremental result equals a clean build but for the changed file's patches, and unpacks to the new source.
        try build(dir.file("src"), dir.file("clean"))
        var incremental = try bundleBytes(dir.file("out")), clean = try bundleBytes(dir.file("clean"))
        let patched = try readManifest(dir.file("out")).entries.compactMap { entry in entry.storage?.patches.map { (entry.path, $0) } }
        #expect(patched.map(\.0) == ["change/big.txt"])
        for (_, patches) in patched { #expect(incremental.removeValue(forKey: patches.file) != nil) }
        incremental.removeValue(forKey: PatchMaker.folder)
        for key in [BundleManifest.path, BundleManifest.identityPath] {
            (incremental[key], clean[key]) = (nil, nil)
        }
        #expect(incremental == clean)
        var entries = try readManifest(dir.file("out")).entries
        for index in entries.indices { entries[index].storage?.patches = nil }
        #expect(entries == (try readManifest(dir.file("clean")).entries))
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(dir.file("src")))
    }

    @Test func anotherLevelOrAnExecutableBitDoesNotReuse() throws {
        let dir = try TemporaryDirectory("settings")
        try Self.tree(dir)
        try build(dir.file("src"), dir.file("out"))
        #expect(try build(dir.file("src"), dir.file("out"), level: 9).reused == 0)
        #expect(try build(dir.file("src"), dir.file("out"), level: 9).reused == 3)
        try chmod(dir.file("src/keep/big.txt"), 0o755)
        #expect(try build(dir.file("src"), dir.file("out"), level: 9).reused == 2)
        #expect(try readManifest(dir.file("out")).entries.first { $0.path == "keep/big.txt" }?.mode == 0o755)
    }

    @Test func damagedPreviousArchiveIsNotReused() throws {
        let dir = try TemporaryDirectory("damaged")
        try Self.tree(dir)
        try build(dir.file("src"), dir.file("out"))
        let archive = dir.file("out/keep/big.txt.zip")
        var damaged = try fileBytes(archive)
        damaged[damaged.count / 2] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: archive))
        let summary = try build(dir.file("src"), dir.file("out"))
        #expect(summary.reused == 2)
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(dir.file("src")))
    }
}
