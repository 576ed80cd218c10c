import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Every route the installer writes by passes one check (`WriteCheck`): a plain copy, an inflated zip entry,
/// a block-parallel inflate, delivered bytes. On each, a flipped byte and a wrong declared
/// size give the one mismatch — code `.verification`, naming the file and saying what differed — and leave
/// nothing installed.
@Suite struct WriteCheckTests {
    /// What a flipped byte may show as: the CRC-32 (or SHA-256) differs, or deflate data no longer decodes.
    static let flipped = ["CRC-32 mismatch: expected ", "SHA-256 mismatch: expected ", "deflate data is damaged"]

    /// Expects the one mismatch for the file at `path`, saying one of `differs`, and nothing at `destination`.
    static func expectMismatch(_ error: AssetPackError?, _ path: String, _ differs: [String], destination: String,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let shown = String(describing: error)
        #expect(error?.code == .verification, "\(shown)", sourceLocation: sourceLocation)
        #expect(error?.message.contains("\"\(path)\"") == true, "\(shown)", sourceLocation: sourceLocation)
        #expect(differs.contains { error?.message.contains($0) == true }, "\(shown)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: destination), "nothing is installed", sourceLocation: sourceLocation)
    }

    /// What installing `source` (a bundle folder or an archive) into `destination` threw.
    static func install(_ source: String, _ destination: String) -> AssetPackError? {
        expectError {
            try AssetInstaller(source: AssetSources.open(path: source, root: nil), destination: destination).installSynchronously()
        }
    }

    /// `bytes` (a zip archive) with the uncompressed size of the entry whose local header is at `local` made
    /// `size`, in its local and central headers (APPNOTE 4.3.7, 4.3.12; no Zip64).
    static func declaring(_ size: UInt32, at local: Int, in bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        func put(at offset: Int) { for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: size >> (8 * index)) } }
        put(at: local + 22)
        for offset in 0..<(bytes.count - 46) where bytes[offset..<offset + 4].elementsEqual([0x50, 0x4B, 0x01, 0x02]) {
            let pointed = bytes[offset + 42..<offset + 46].reversed().reduce(0) { $0 << 8 | Int($1) }
            if pointed == local { put(at: offset + 24) }
        }
        return bytes
    }

    @Test func aPlainCopy() throws {
        let dir = try TemporaryDirectory("check-copy")
        var random = SeededRandom(seed: 501)
        try dir.write("src/a/plain.bin", random.bytes(100_000))
        var rules = PackingRules()
        rules.packMemberLimit = 0
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: dir.file("src"), output: dir.file("out"))
        let storage = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "a/plain.bin" }?.storage)
        #expect(storage.form == .plain)
        let file = dir.file("out/" + storage.file), original = try fileBytes(file)
        var damaged = original
        damaged[50_000] ^= 0x10
        try writeBytes(damaged, to: file)
        Self.expectMismatch(Self.install(dir.file("out"), dir.file("one")), "a/plain.bin", ["CRC-32 mismatch: expected "],
                            destination: dir.file("one"))
        try writeBytes(original + [0], to: file)
        Self.expectMismatch(Self.install(dir.file("out"), dir.file("two")), "a/plain.bin",
                            ["size mismatch: expected 100000 bytes (recorded in the manifest), data has more"], destination: dir.file("two"))
    }

    @Test func anInflatedEntry() throws {
        let dir = try TemporaryDirectory("check-inflate")
        var random = SeededRandom(seed: 502)
        let entry = try RawZip.deflated("d/data.txt", random.text(40_000))
        var (bytes, layout) = RawZip([entry]).build()
        bytes[layout.dataOffsets[0] + 500] ^= 0x10
        try writeBytes(bytes, to: dir.file("flipped.zip"))
        Self.expectMismatch(Self.install(dir.file("flipped.zip"), dir.file("one")), "d/data.txt", Self.flipped + ["size mismatch"],
                            destination: dir.file("one"))
        try writeBytes(Self.declaring(40_100, at: layout.localOffsets[0], in: RawZip([entry]).build().bytes), to: dir.file("long.zip"))
        Self.expectMismatch(Self.install(dir.file("long.zip"), dir.file("two")), "d/data.txt",
                            ["size mismatch: expected 40100 bytes (declared in the central directory), data has 40000"],
                            destination: dir.file("two"))
    }

    /// A bundle whose `models/big.txt` is deflated in blocks, and its manifest entry's storage.
    static func blockBundle(_ dir: TemporaryDirectory) throws -> (bundle: String, storage: BundleManifest.Storage, archive: String) {
        _ = try Packer(options: BuildOptions(rules: smallBlockRules(), jobs: 2)).build(source: try blockTree(dir), output: dir.file("out"))
        let storage = try #require(try readManifest(dir.file("out")).entries.first { $0.path == "models/big.txt" }?.storage)
        #expect(storage.blocks?.count ?? 0 > 10)
        return (dir.file("out"), storage, dir.file("out/" + storage.file))
    }

    /// `archive` with its only entry declaring one byte more than it holds (and the manifest records).
    static func declaringMore(_ archive: String, entry name: String?) throws -> [UInt8] {
        let entry = try #require(try ZipArchive(path: archive).entries.first { $0.name == name })
        return Self.declaring(UInt32(entry.uncompressedSize + 1), at: Int(entry.localHeaderOffset), in: try fileBytes(archive))
    }

    @Test func aBlockParallelInflate() throws {
        let dir = try TemporaryDirectory("check-blocks")
        let (bundle, storage, archive) = try Self.blockBundle(dir)
        let original = try fileBytes(archive)
        var damaged = original
        damaged[Int(try #require(storage.dataOffset)) + 5_000] ^= 0x10
        try writeBytes(damaged, to: archive)
        Self.expectMismatch(Self.install(bundle, dir.file("one")), "models/big.txt", Self.flipped + ["size mismatch"],
                            destination: dir.file("one"))
        try writeBytes(try Self.declaringMore(archive, entry: storage.entry), to: archive)
        Self.expectMismatch(Self.install(bundle, dir.file("two")), "models/big.txt",
                            ["size mismatch: expected 1500000 bytes (recorded in the manifest), data has 1500001"],
                            destination: dir.file("two"))
    }

    @Test func aDeliveredFile() throws {
        let dir = try TemporaryDirectory("check-delivered")
        let (_, bundle, _) = try DeliveryGroupTests.bundle(dir)
        let file = bundle + "/plain.bin", original = try fileBytes(file)
        func install(_ destination: String) -> AssetPackError? {
            expectError {
                try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: FolderDelivery(root: bundle)),
                                   destination: destination, options: ExpansionOptions(durability: .none)).installSynchronously()
            }
        }
        var damaged = original
        damaged[70_000] ^= 0x10
        try writeBytes(damaged, to: file)
        Self.expectMismatch(install(dir.file("one")), "plain.bin", Self.flipped, destination: dir.file("one"))
        try writeBytes(original + [0], to: file)
        Self.expectMismatch(install(dir.file("two")), "plain.bin",
                            ["size mismatch: expected 100000 bytes (recorded in the manifest), data has more"], destination: dir.file("two"))
    }
}
