import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Members of pack archives carry what delivery over HTTP needs, as every other packed file does: the
/// SHA-256 of their bytes and where their data begins in the archive (checked here against the zip's own
/// local header, read byte by byte), so a bundle with pack archives has the SHA-256 identity (version 2).
@Suite struct PackMemberHashTests {
    /// The entries of `manifest` gathered into pack archives.
    static func gathered(_ manifest: BundleManifest) -> [BundleManifest.Entry] {
        manifest.entries.filter { $0.storage?.file.hasPrefix(PackGrouping.folder + "/") == true }
    }

    @Test func everyPackMemberHasItsSHA256AndTheOffsetOfItsData() throws {
        let dir = try TemporaryDirectory("pack-hashes")
        let src = try PackArchiveTests.tree(dir)
        try PackArchiveTests.buildDefault(src, dir.file("out"), packSize: 8_000)
        let manifest = try readManifest(dir.file("out"))
        let members = Self.gathered(manifest)
        #expect(members.count == 121)
        #expect(manifest.format == BundleManifest.currentFormat && manifest.identity == ContentIdentity.of(manifest.entries))
        for entry in members {
            let storage = try #require(entry.storage)
            #expect(entry.sha256 == sha256Hex(try fileBytes(src + "/" + entry.path)), "\(entry.path)")
            let archive = try fileBytes(dir.file("out/" + storage.file))
            let zipEntry = try #require(try ZipArchive(path: dir.file("out/" + storage.file)).entries.first { $0.name == storage.entry })
            let offset = try #require(storage.dataOffset, "\(entry.path)")
            #expect(offset == Self.dataOffset(localHeaderAt: Int(zipEntry.localHeaderOffset), in: archive, name: try #require(storage.entry)),
                    "\(entry.path)")
            let data = Array(archive[Int(offset)..<Int(offset + zipEntry.compressedSize)])
            if storage.method == "stored" { #expect(data == (try fileBytes(src + "/" + entry.path)), "\(entry.path)") }
        }
    }

    @Test func aRebuildThatReusesThePacksKeepsTheHashesAndOffsets() throws {
        let dir = try TemporaryDirectory("pack-hashes-again")
        let src = try PackArchiveTests.tree(dir)
        try PackArchiveTests.buildDefault(src, dir.file("out"), packSize: 8_000)
        let first = try readManifest(dir.file("out"))
        let again = try PackArchiveTests.buildDefault(src, dir.file("out"), packSize: 8_000)
        #expect(again.reused == 122)
        let second = try readManifest(dir.file("out"))
        #expect(second == first)
        #expect(Self.gathered(second).allSatisfy { $0.sha256 != nil && $0.storage?.dataOffset != nil })
    }

    /// Where the data of the entry whose local header (APPNOTE 4.3.7) starts at `start` begins: after the
    /// 30 fixed bytes, the name and the extra field.
    static func dataOffset(localHeaderAt start: Int, in archive: [UInt8], name: String) -> UInt64? {
        func le16(_ at: Int) -> Int { Int(archive[at]) | Int(archive[at + 1]) << 8 }
        guard archive.count >= start + 30, archive[start..<start + 4] == [0x50, 0x4b, 0x03, 0x04] else { return nil }
        let nameLength = le16(start + 26), extraLength = le16(start + 28)
        guard Array(archive[start + 30..<start + 30 + nameLength]) == Array(name.utf8) else { return nil }
        return UInt64(start + 30 + nameLength + extraLength)
    }
}
