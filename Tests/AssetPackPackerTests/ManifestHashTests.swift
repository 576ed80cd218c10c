import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// The SHA-256s and data offsets a folder build records (``BundleManifest/Entry/sha256``,
/// ``BundleManifest/Storage/blockSHA256``, ``BundleManifest/Storage/dataOffset``), checked against the files.
@Suite struct ManifestHashTests {
    /// A small file (gathered into a pack archive), a packed one, and one deflated in 64 KiB blocks.
    static func bundle(_ dir: TemporaryDirectory) throws -> (source: String, bundle: String, manifest: BundleManifest) {
        var random = SeededRandom(seed: 15)
        try dir.write("src/small.txt", text: "small")
        try dir.write("src/packed.txt", random.text(40_000))
        try dir.write("src/blocks.txt", random.text(300_000))
        var rules = PackingRules(threshold: 1024)
        rules.chunking = ContentChunking(averageBits: 14)!
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: dir.file("src"), output: dir.file("out"))
        return (dir.file("src"), dir.file("out"), try readManifest(dir.file("out")))
    }

    /// Writes `manifest` over the bundle's manifest and identity, leaving its pack archives in place.
    static func replaceManifest(of bundle: String, with manifest: BundleManifest) throws {
        for path in [BundleManifest.path, BundleManifest.identityPath] {
            try FileManager.default.removeItem(atPath: bundle + "/" + path)
        }
        try ManifestWriter.write(manifest, intoFolder: bundle)
    }

    @Test func everyFileHasTheSHA256OfItsBytes() throws {
        let dir = try TemporaryDirectory("hashes")
        let (source, _, manifest) = try Self.bundle(dir)
        for entry in manifest.entries where entry.kind == .file {
            #expect(entry.sha256 == sha256Hex(try fileBytes(source + "/" + entry.path)), "\(entry.path)")
        }
        #expect(manifest.format == BundleManifest.currentFormat)
        #expect(manifest.identity == ContentIdentity.of(manifest.entries))
    }

    @Test func theArchiveFormRecordsTheSameHashes() throws {
        let dir = try TemporaryDirectory("hashes")
        let (source, _, folder) = try Self.bundle(dir)
        var rules = PackingRules(threshold: 1024)
        rules.chunking = ContentChunking(averageBits: 14)!
        _ = try Packer(options: BuildOptions(rules: rules)).buildArchive(source: source, output: dir.file("all.zip"))
        let archived = try #require(try BundleManifest.read(from: ZipAssetSource(path: dir.file("all.zip"))))
        #expect(archived.entries.map(\.sha256) == folder.entries.map(\.sha256))
        #expect(archived.identity == folder.identity)
    }

    @Test func blockHashesCoverTheBlocksAndTheDataOffsetFindsTheData() throws {
        let dir = try TemporaryDirectory("hashes")
        let (source, bundle, manifest) = try Self.bundle(dir)
        let entry = try #require(manifest.entries.first { $0.path == "blocks.txt" })
        let storage = try #require(entry.storage)
        let bytes = try fileBytes(source + "/blocks.txt")
        let starts = try #require(storage.blocks).map { Int($0[0]) }
        let ends = starts.dropFirst() + [bytes.count]
        let chunks = try chunks(of: bytes, by: try #require(storage.chunking.flatMap(ContentChunking.init(name:))))
        #expect(starts.count > 5 && starts.map(UInt64.init) == chunks.offsets, "the blocks are the file's content-defined chunks")
        #expect(storage.blockSHA256 == zip(starts, ends).map { sha256Hex(Array(bytes[$0..<$1])) })
        for path in ["blocks.txt", "packed.txt"] {
            let stored = try #require(manifest.entries.first { $0.path == path }?.storage)
            let archive = try ZipArchive(path: bundle + "/" + stored.file)
            let range = try archive.dataRange(of: try #require(archive.entries.first))
            #expect(stored.dataOffset == range.lowerBound)
        }
        #expect(manifest.entries.first { $0.path == "packed.txt" }?.storage?.blockSHA256 == nil)
    }

    @Test func aRebuildThatReusesArchivesKeepsTheHashes() throws {
        let dir = try TemporaryDirectory("hashes")
        let (source, bundle, first) = try Self.bundle(dir)
        var rules = PackingRules(threshold: 1024)
        rules.chunking = ContentChunking(averageBits: 14)!
        let summary = try Packer(options: BuildOptions(rules: rules)).build(source: source, output: bundle)
        #expect(summary.reused == 3)  // the two archives and small.txt's pack archive
        #expect(try readManifest(bundle) == first)
    }

    @Test func verifyRefusesAFileWhoseSHA256DiffersFromTheManifest() throws {
        let dir = try TemporaryDirectory("hashes")
        let (_, bundle, manifest) = try Self.bundle(dir)
        var forged = manifest
        let index = try #require(forged.entries.firstIndex { $0.path == "small.txt" })
        forged.entries[index].sha256 = String(repeating: "0", count: 64)
        forged.identity = ContentIdentity.of(forged.entries)
        try Self.replaceManifest(of: bundle, with: forged)
        let error = expectError { _ = try BundleVerification.verify(DirectorySource(root: bundle)) }
        #expect(error?.code == .verification)
        #expect(error?.message.contains("SHA-256") == true)
    }

    @Test func theInstallerChecksTheSHA256WhenAsked() async throws {
        let dir = try TemporaryDirectory("hashes")
        let (_, bundle, manifest) = try Self.bundle(dir)
        var forged = manifest
        for path in ["small.txt", "blocks.txt"] {
            let index = try #require(forged.entries.firstIndex { $0.path == path })
            forged.entries[index].sha256 = String(repeating: "0", count: 64)
        }
        forged.identity = ContentIdentity.of(forged.entries)
        try Self.replaceManifest(of: bundle, with: forged)
        var options = ExpansionOptions(durability: .none)
        options.checksSHA256 = true
        let checked = try AssetInstaller(source: DirectorySource(root: bundle), destination: dir.file("checked"), options: options)
        let error = await expectFailure { try await checked.install() }
        #expect(error?.code == .verification)
        #expect(error?.message.contains("SHA-256 mismatch: expected \(String(repeating: "0", count: 64)) (recorded in the manifest)") == true,
                "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.file("checked")))
        let trusting = try AssetInstaller(source: DirectorySource(root: bundle), destination: dir.file("trusting"),
                                          options: ExpansionOptions(durability: .none))
        #expect(try await !trusting.install().upToDate, "by default the CRC-32 is the check of a local bundle")
    }

    @Test func manifestsWithoutHashesKeepTheirFormatOneIdentity() throws {
        let entry = BundleManifest.Entry.file("a.txt", size: 1, crc32: 7, storage: .plain("a.txt"))
        var hashed = entry
        hashed.sha256 = String(repeating: "a", count: 64)
        #expect(ContentIdentity.of([entry]) != ContentIdentity.of([hashed]))
        let old = #"{"entries":[{"crc32":7,"kind":"file","path":"a.txt","size":1,"storage":{"file":"a.txt","form":"plain"}}],"#
            + #""format":1,"generator":"g","identity":"\#(ContentIdentity.of([entry]))","threshold":1}"#
        let decoded = try BundleManifest.read(bytes: Array(old.utf8), origin: "old")
        #expect(decoded.format == 1)
        #expect(decoded.entries == [entry])
    }

    @Test func aMalformedHashIsAManifestError() {
        var entry = BundleManifest.Entry.file("a.txt", size: 1, crc32: 7, storage: .plain("a.txt"))
        entry.sha256 = "ABC"
        let manifest = BundleManifest(threshold: 1, generator: "g", entries: [entry])
        let error = expectError { _ = try BundleManifest.read(bytes: try manifest.encodedJSON(), origin: "m") }
        #expect(error?.code == .manifest)
    }
}

/// 64 lowercase hex digits of the SHA-256 of `bytes` (with the library's own SHA-256).
func sha256Hex(_ bytes: [UInt8]) -> String {
    var hash = AssetPack.SHA256()
    hash.update(bytes)
    return hash.finalizeHex()
}

/// The error `body` throws.
private func expectFailure(_ body: () async throws -> Void) async -> AssetPackError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? AssetPackError
    }
}
