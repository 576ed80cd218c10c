import Foundation
import Testing
import TestSupport
@testable import AssetPack
import AssetPackSystem
import AssetPackZip

/// ``ManifestReader`` reads a manifest in any valid JSON layout a chunk at a time, and refuses any other text
/// with one `.manifest` error that says where.
@Suite struct ManifestReaderTests {
    /// `count` packed files in folders, with hashes; one in 50 has a long block list.
    static func manifest(_ count: Int) -> BundleManifest {
        let hash = String(repeating: "0123456789abcdef", count: 4)
        var entries: [BundleManifest.Entry] = (0..<count / 100 + 1).map { .directory("d\($0)") }
        for index in 0..<count {
            let path = "d\(index / 100)/f\(index).txt"
            let blocks: [[UInt64]]? = index % 50 == 7 ? (0..<40).map { [UInt64($0) << 16, UInt64($0) * 999] } : nil
            let storage = BundleManifest.Storage.packed(archive: "assetpack-meta/packs/\(index / 100).zip", entry: path,
                                                        method: index % 3 == 0 ? "stored" : "deflate", compressedSize: UInt64(index),
                                                        blocks: blocks, dataOffset: UInt64(index) * 30)
            entries.append(.file(path, size: UInt64(index), crc32: UInt32(index), storage: storage, sha256: hash))
        }
        var manifest = BundleManifest(threshold: 1, generator: "g", entries: entries)
        manifest.packing = "p"
        return manifest
    }

    /// A manifest using every member: folders, plain and packed files, block indexes and hashes, names to escape.
    static let everyMember: BundleManifest = {
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

    /// `bytes` read as a bundle's manifest through a stream that hands out `trickle` bytes a read (so that every
    /// token is cut by a chunk's end somewhere), with every check.
    static func read(_ bytes: [UInt8], trickle: Int? = nil) throws(AssetPackError) -> BundleManifest {
        let stream: any ByteStream = trickle.map { TrickleStream(bytes, step: $0) } ?? MemoryStream(bytes)
        return try BundleManifest.read(stream, origin: "m")
    }

    /// The manifest of `json` with its identity made right for its entries, as text.
    static func withIdentity(_ json: String) throws -> [UInt8] {
        let manifest = try JSONDecoder().decode(BundleManifest.self, from: Data(json.utf8))
        return Array(json.replacingOccurrences(of: #""identity": "i""#, with: #""identity": "\#(manifest.computedIdentity)""#).utf8)
    }

    @Test(arguments: [nil, 3, 4_093])
    func readsThePackersLayoutInAnyChunks(trickle: Int?) throws {
        for manifest in [Self.manifest(3_000), Self.everyMember, BundleManifest(threshold: 1, generator: "g", entries: [])] {
            let bytes = try manifest.encodedJSON()
            #expect(try Self.read(bytes, trickle: trickle) == manifest)
        }
    }

    /// The writer's side: one entry a line, no white space inside a value, what `JSONDecoder` reads too.
    @Test func theManifestIsCompactWithOneEntryPerLine() throws {
        let bytes = try Self.everyMember.encodedJSON()
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == Self.everyMember.entries.count + 3)  // opening, entries, closing, after the final newline
        #expect(lines.first == #"{"entries":["#)
        #expect(lines.last == "")
        for (line, entry) in zip(lines.dropFirst(), Self.everyMember.entries) {
            #expect(!line.contains(": ") && !line.hasPrefix(" "))
            let json = line.hasSuffix(",") ? line.dropLast() : line
            #expect(try JSONDecoder().decode(BundleManifest.Entry.self, from: Data(json.utf8)) == entry)
        }
        #expect(try JSONDecoder().decode(BundleManifest.self, from: Data(bytes)) == Self.everyMember)
    }

    /// A manifest longer than readers accept is not written: the build fails instead of making a bundle
    /// that no expansion could read.
    @Test func aManifestPastTheReadersLimitIsNotWritten() throws {
        let size = try Self.everyMember.encodedJSON().count
        #expect(try Self.everyMember.encodedJSON(limit: size).count == size)
        let error = #expect(throws: AssetPackError.self) { try Self.everyMember.encodedJSON(limit: size - 1) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("3 entries") == true && error?.message.contains("split the tree") == true)
    }

    /// Pretty-printed, unsorted (`JSONEncoder` in the order of the properties), with `\/` escapes: the same manifest.
    @Test func otherEncodersLayoutsReadTheSame() throws {
        for formatting in [JSONEncoder.OutputFormatting.prettyPrinted, [], [.sortedKeys, .prettyPrinted]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            let bytes = Array(try encoder.encode(Self.everyMember))
            #expect(try Self.read(bytes, trickle: 3) == Self.everyMember)
        }
    }

    /// Every order of the top-level members, and of an entry's and a storage's, reads the same.
    @Test func memberOrderDoesNotMatter() throws {
        let top = [#""format": 2"#, #""identity": "i""#, #""threshold": 5"#, #""generator": "g""#, #""packing": "x""#,
                   #""entries": [ENTRIES]"#]
        let entry = [#""path": "d/a""#, #""kind": "file""#, #""size": 3"#, #""crc32": 7"#, #""mode": 420"#, #""storage": {STORAGE}"#]
        let storage = [#""form": "packed""#, #""file": "p.zip""#, #""entry": "d/a""#, #""method": "stored""#, #""compressedSize": 3"#,
                       #""dataOffset": 30"#]
        var random = SeededRandom(seed: 0x6f72646572)
        var first: BundleManifest?
        for round in 0..<40 {
            let text = top.shuffled(using: &random).joined(separator: round % 2 == 0 ? "," : " ,\n\t ")
                .replacingOccurrences(of: "ENTRIES", with: "{" + entry.shuffled(using: &random).joined(separator: ",") + "}")
                .replacingOccurrences(of: "STORAGE", with: storage.shuffled(using: &random).joined(separator: ","))
            let manifest = try Self.read(try Self.withIdentity("{" + text + "}"), trickle: round % 5 + 1)
            #expect(manifest.entries.count == 1 && manifest.entries[0].storage?.dataOffset == 30 && manifest.packing == "x")
            if let first { #expect(manifest == first) } else { first = manifest }
        }
    }

    /// Escapes (`\u00e9`, `\/`, a surrogate pair, escaped member names), `null` for optional members and
    /// unknown members of every kind of value read as the plain spelling does.
    @Test func escapesNullsAndUnknownMembers() throws {
        let json = #"""
         {"form\u0061t": 2, "identity": "i", "threshold": 1, "generator": "g\/h", "extra": [1, -2.5e+3, {"x": null}, true, "\ud83d\ude00"],
          "packing": null, "entries": [{"p\u0061th": "caf\u00e9\/\ud83d\ude00", "kind": "file", "size": 1, "crc32": 7,
            "mode": null, "sha256": null, "more": {"deep": [[[]]]},
            "storage": {"form": "plain", "file": "a\u002fb", "entry": null, "blocks": null, "blockSHA256": null, "other": "y"}}]}
        """#
        let manifest = try Self.read(try Self.withIdentity(json), trickle: 2)
        #expect(manifest.generator == "g/h" && manifest.packing == nil && manifest.format == 2)
        #expect(manifest.entries.map(\.path) == ["caf\u{E9}/\u{1F600}"])
        #expect(manifest.entries[0].storage == .plain("a/b") && manifest.entries[0].mode == nil)
    }

    /// Each fault is a `.manifest` error that names where it is: a byte offset, or the entry's path.
    @Test(arguments: [
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [] "#, "ends inside an object at byte 79"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "ki"#, "ends inside a string"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": []} x"#, "text follows the value at byte 80"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": []}}"#, "text follows the value"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": [1, 2,]}"#, "a value is expected after ','"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": {"a" 1}}"#, "':' is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": "a\#u{01}b"}"#, "control character"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": nul}"#, "null is misspelt"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": 01}"#, "',' or '}' is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "x": 1.}"#, "a digit is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 12x, "generator": "g", "entries": []}"#, "',' or '}' is expected at byte 46"),
        (#"{"format": 2, "identity": "i", "threshold": 1.5, "generator": "g", "entries": []}"#, "not a fraction"),
        (#"{"format": 2, "identity": "i", "threshold": -1, "generator": "g", "entries": []}"#, "an unsigned integer is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 99999999999999999999, "generator": "g", "entries": []}"#,
         "a number larger than 18446744073709551615 at byte 44"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "file", "crc32": 4294967296}]}"#,
         "larger than 4294967295"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "folder"}]}"#,
         #""kind" is not "file" or "directory" at byte 98"#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": 1, "kind": "directory"}]}"#,
         "a string is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"kind": "directory"}]}"#, #"lacks "path""#),
        (#"{"format": 2, "identity": "i", "generator": "g", "entries": []}"#, #"the manifest lacks "threshold""#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": {}}"#, "an array is expected"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "threshold": 1, "generator": "g", "entries": []}"#,
         #"the member "threshold" is given twice"#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [], "entries": []}"#, #""entries" is given twice"#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a", "kind": "directory", "path": "b"}]}"#,
         #""path" is given twice"#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "b", "kind": "directory"}, "#
            + #"{"path": "a", "kind": "directory"}]}"#, #"not in path order: "a" comes after "b""#),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a\ud800", "kind": "directory"}]}"#,
         "a surrogate lacks its low half at byte 94"),
        (#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": "a\q", "kind": "directory"}]}"#,
         #"\q is no JSON escape"#),
        ("{\"format\": 2, \"identity\": \"i\", \"threshold\": 1, \"generator\": \"g\", \"entries\": [], \"deep\": "
            + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}", "nested more than 64 deep"),
        ("[]", "an object is expected at byte 0"),
        ("", "an object is expected at byte 0"),
    ])
    func faultsAreNamed(_ json: String, _ wording: String) {
        for trickle in [nil, 1, 5] {
            let error = #expect(throws: AssetPackError.self) { try Self.read(Array(json.utf8), trickle: trickle) }
            #expect(error?.code == .manifest && error?.path == "m")
            #expect(error?.message.contains(wording) == true, "\(error?.message ?? "") for \(json)")
        }
    }

    /// Bytes that are not UTF-8, in a value read or in one skipped, are refused.
    @Test func invalidUTF8IsRefused() {
        let head = Array(#"{"format": 2, "identity": "i", "threshold": 1, "generator": "g", "entries": [{"path": ""#.utf8)
        let tail = Array(#"", "kind": "directory"}]}"#.utf8)
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xE2, 0x82]] {
            let error = #expect(throws: AssetPackError.self) { try Self.read(head + bad + tail) }
            #expect(error?.code == .manifest && error?.message.contains("not valid UTF-8 at byte 86") == true, "\(error?.message ?? "")")
            let skipped = Array(#"{"x": ""#.utf8) + bad + Array(#"", "entries": []}"#.utf8)
            let alsoError = #expect(throws: AssetPackError.self) { try Self.read(skipped) }
            #expect(alsoError?.message.contains("not valid UTF-8") == true)
        }
    }

    /// A manifest longer than a chunk reads the same whatever the reads (the limit on its size is the
    /// parser's: ``JSONPullParserTests``).
    @Test func aManifestLargerThanAChunk() throws {
        let manifest = Self.manifest(20_000)
        let bytes = try manifest.encodedJSON()
        #expect(bytes.count > 4 * ManifestReader.chunkSize)
        #expect(try Self.read(bytes) == manifest)
        #expect(try Self.read(bytes, trickle: 65_537) == manifest)
    }

    /// Through ``BundleManifest/read(from:)``: a wrong identity is found, whatever the layout.
    @Test func aWrongIdentityIsFound() throws {
        let scratch = try TemporaryDirectory("manifest-reader")
        var broken = Self.manifest(2_000)
        broken.entries[5].size = 1
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        for (name, bytes) in [("packer", try broken.encodedJSON()), ("pretty", Array(try encoder.encode(broken)))] {
            try BundleManifestSinkTests.write(bytes, to: scratch.file(name))
            let error = #expect(throws: AssetPackError.self) { try BundleManifest.read(from: DirectorySource(root: scratch.file(name))) }
            #expect(error?.code == .manifest && error?.message.contains("identity does not match") == true)
        }
    }
}

/// The byte order manifests sort and hash their paths in.
@Suite struct PathByteOrderTests {
    @Test func bytesPrecedeIsTheOrderOfTheUTF8Bytes() {
        let names = ["", "a", "a/b", "a-b", "a.b", "ab", "B", "b", "caf\u{E9}", "cafe\u{301}", "\u{1F600}", "z", "zz", "a/b/c"]
        for left in names {
            for right in names {
                #expect(Memory.bytesPrecede(left, right) == left.utf8.lexicographicallyPrecedes(right.utf8), "\(left) < \(right)")
            }
        }
    }

    /// While a manifest is read a run at a time, the contents are checked as each run comes and the
    /// identity (computed meanwhile on a second thread) at the end: a manifest with both faults reports the
    /// contents' one, as when they ran one after the other, and each is found.
    @Test func contentsErrorsComeBeforeTheIdentitysAndEachIsFound() throws {
        let scratch = try TemporaryDirectory("manifest-faults")
        var both = ManifestReaderTests.manifest(200)
        both.entries[3].sha256 = "xyz"
        both.identity = "0"
        let contents = #expect(throws: AssetPackError.self) { try BundleManifestSinkTests.read(both, in: scratch.file("both")) }
        #expect(contents?.message.contains("not 64 lowercase hex digits") == true)
        var identity = ManifestReaderTests.manifest(200)
        identity.identity = "0"
        let mismatch = #expect(throws: AssetPackError.self) { try BundleManifestSinkTests.read(identity, in: scratch.file("identity")) }
        #expect(mismatch?.message.contains("identity does not match") == true)
        #expect(try BundleManifestSinkTests.read(ManifestReaderTests.manifest(200), in: scratch.file("good"))
                == ManifestReaderTests.manifest(200))
    }
}

extension BundleManifest {
    /// The identity of the entries (tests).
    var computedIdentity: String { ContentIdentity.of(entries) }
}

/// Hands out at most `step` bytes a read.
final class TrickleStream: ByteStream {
    private let bytes: [UInt8]
    private let step: Int
    private var position = 0

    init(_ bytes: [UInt8], step: Int = 7) {
        self.bytes = bytes
        self.step = step
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = min(buffer.count, bytes.count - position, step)
        guard count > 0 else { return 0 }
        for index in 0..<count { buffer[index] = bytes[position + index] }
        position += count
        return count
    }
}
