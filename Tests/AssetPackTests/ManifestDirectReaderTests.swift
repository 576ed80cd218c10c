import Foundation
import Testing
import TestSupport
@testable import AssetPack

/// ``ManifestDirectReader`` reads what `Decodable` reads, and leaves every other text to it.
@Suite struct ManifestDirectReaderTests {
    /// A manifest using every member: directories, plain and packed files, block indexes and hashes.
    static let manifest: BundleManifest = {
        var manifest = BundleManifest(threshold: 5, generator: "g", entries: [
            .directory("d"),
            .file("d/é.txt", size: 3, crc32: 0xFFFF_FFFF, storage: .packed(archive: "p/1.zip", entry: "d/é.txt", method: "deflate",
                                                                            compressedSize: 9, blocks: [[0, 0], [65536, 100]]),
                  mode: 0o755, sha256: String(repeating: "ab", count: 32)),
            .file("a \"q\"", size: 0, crc32: 0, storage: .plain("a \"q\"")),
        ])
        manifest.entries[1].storage?.blockSHA256 = [String(repeating: "cd", count: 32)]
        manifest.entries[1].storage?.dataOffset = 48
        manifest.packing = "x"
        return manifest
    }()

    @Test func readsTheManifestThePackerWrites() throws {
        let bytes = try Self.manifest.encodedJSON()
        #expect(ManifestDirectReader.manifest(bytes) == Self.manifest)
        #expect(try JSONBytesDecoder.decode(BundleManifest.self, from: bytes) == Self.manifest)
    }

    /// The packer writes one entry a line, no white space inside a value: what `JSONDecoder` reads too.
    @Test func theManifestIsCompactWithOneEntryPerLine() throws {
        let bytes = try Self.manifest.encodedJSON()
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == Self.manifest.entries.count + 3)  // opening, entries, closing, after the final newline
        #expect(lines.first == #"{"entries":["#)
        #expect(lines.last == "")
        for (line, entry) in zip(lines.dropFirst(), Self.manifest.entries) {
            #expect(!line.contains(": ") && !line.hasPrefix(" "))
            let json = line.hasSuffix(",") ? line.dropLast() : line
            #expect(try JSONDecoder().decode(BundleManifest.Entry.self, from: Data(json.utf8)) == entry)
        }
        #expect(try JSONDecoder().decode(BundleManifest.self, from: Data(bytes)) == Self.manifest)
        let empty = BundleManifest(threshold: 1, generator: "g", entries: [])
        #expect(ManifestDirectReader.manifest(try empty.encodedJSON()) == empty)
    }

    /// A manifest longer than readers accept is not written: the build fails instead of making a bundle
    /// that no expansion could read.
    @Test func aManifestPastTheReadersLimitIsNotWritten() throws {
        let size = try Self.manifest.encodedJSON().count
        #expect(try Self.manifest.encodedJSON(limit: size).count == size)
        let error = #expect(throws: AssetPackError.self) { try Self.manifest.encodedJSON(limit: size - 1) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("3 entries") == true && error?.message.contains("split the tree") == true)
    }

    /// A long entry list is read in two halves split at a line that starts an entry: the result is the
    /// same as reading it in order, for the packer's layout and a pretty-printed one.
    @Test func aLongManifestReadsTheSameInHalves() throws {
        let hash = String(repeating: "0123456789abcdef", count: 4)
        let entries = (0..<8_000).map { (index: Int) -> BundleManifest.Entry in
            let path = "d\(index % 7)/f\(index).txt"
            let storage = BundleManifest.Storage.packed(archive: "assetpack-meta/packs/\(index / 100).zip", entry: path,
                                                        method: index % 3 == 0 ? "stored" : "deflate", compressedSize: UInt64(index))
            return .file(path, size: UInt64(index), crc32: UInt32(index), storage: storage, sha256: hash)
        }
        let manifest = BundleManifest(threshold: 1, generator: "g", entries: entries)
        let compact = try manifest.encodedJSON()
        #expect(compact.count > ManifestDirectReader.splitSize)
        #expect(ManifestDirectReader.manifest(compact) == manifest)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        #expect(ManifestDirectReader.manifest(Array(try encoder.encode(manifest))) == manifest)
    }

    /// A line that looks like an entry's start but is inside one (an unknown member's array of objects,
    /// one a line) does not split the list: it is read in order, the same as `JSONDecoder` reads it.
    @Test func aSplitInsideAnEntryIsNotTaken() throws {
        let inner = Array(repeating: #"{"a": 1}"#, count: 200_000).joined(separator: ",\n")
        let json = #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "directory","#
            + "\n\"extra\": [\n" + inner + "]},\n" + #"{"path": "b", "kind": "directory"}]}"#
        let bytes = Array(json.utf8)
        #expect(bytes.count > ManifestDirectReader.splitSize)
        let direct = try #require(ManifestDirectReader.manifest(bytes))
        #expect(direct.entries.map(\.path) == ["a", "b"])
        #expect(direct == (try JSONDecoder().decode(BundleManifest.self, from: Data(bytes))))
    }

    @Test func nullsUnknownMembersAndRepeatedNamesReadAsWithDecodable() throws {
        let json = #"""
        {"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": [1, {"x": null}], "packing": null,
         "entries": [{"path": "a", "kind": "file", "size": 1, "size": 2, "crc32": 7, "mode": null, "sha256": null,
                      "storage": {"form": "plain", "file": "a", "entry": null, "blocks": null, "other": "y"}}]}
        """#
        let bytes = Array(json.utf8)
        let direct = try #require(ManifestDirectReader.manifest(bytes))
        #expect(direct == (try JSONBytesDecoder.decode(BundleManifest.self, from: bytes)))
        #expect(direct.entries.first?.size == 2)  // the last member of a name wins
    }

    @Test(arguments: [
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"p\u0061th": "a", "kind": "directory"}]}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "folder"}]}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": 1, "kind": "directory"}]}"#,
        #"{"format": 2, "identity": "i", "threshold": 1.5, "generator": "g", "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": -1, "generator": "g", "entries": []}"#,
        #"{"format": 2, "identity": "i", "generator": "g", "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": {}}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [] "#,
    ])
    func leavesOtherTextsToDecodable(_ json: String) {
        #expect(ManifestDirectReader.manifest(Array(json.utf8)) == nil)
    }

    /// The reader checks the syntax in the one pass it reads in: broken text anywhere, in a member it
    /// reads or one it steps over, is not taken on, and the decoder then rejects it too.
    @Test(arguments: [
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": []} x"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": []}}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": [1, 2,], "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": {"a" 1}, "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": "a\#u{01}b", "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": nul, "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "extra": 01, "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "packing": nulx, "entries": []}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "directory", "x": [}]}"#,
        #"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a" "kind": "directory"}]}"#,
        #"{"format": 2, "identity": "i", "threshold": 12x, "generator": "g", "entries": []}"#,
        "{\"format\": 2, \"identity\": \"i\", \"threshold\": 1, \"generator\": \"g\", \"entries\": [], \"deep\": "
            + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "}",
    ])
    func rejectsBrokenSyntaxAnywhere(_ json: String) {
        let bytes = Array(json.utf8)
        #expect(ManifestDirectReader.manifest(bytes) == nil)
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode(BundleManifest.self, from: bytes) }
    }
}
