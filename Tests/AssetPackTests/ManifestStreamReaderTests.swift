import Foundation
import Testing
import TestSupport
@testable import AssetPack
import AssetPackSystem
import AssetPackZip

/// ``ManifestStreamReader`` reads the packer's manifests a chunk at a time into exactly what the whole-text
/// reader makes of them, and leaves every other text to it.
@Suite struct ManifestStreamReaderTests {
    /// `count` packed files in folders, with hashes; one in 50 has a long block list, so its line is longer
    /// than the smallest chunks tried.
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

    /// The manifest `bytes` read from `stream(bytes)` in chunks of `chunk` bytes, its entries gathered from
    /// the runs the reader hands over; nil when the reader does not take the text on.
    static func streamed(_ bytes: [UInt8], chunk: Int, trickle: Bool = false, expected: Bool = true,
                         limit: Int = BundleManifest.maxEncodedSize) throws -> BundleManifest? {
        let stream: any ByteStream = trickle ? TrickleStream(bytes) : MemoryStream(bytes)
        var entries: [BundleManifest.Entry] = []
        var counts: [Int?] = []
        var manifest = try ManifestStreamReader.read(stream, expectedSize: expected ? UInt64(bytes.count) : nil, limit: limit,
                                                     chunkSize: chunk, origin: "m") { (run, count) in
            entries += run
            counts.append(count)
        }
        // Only the first run says how many there are in all, and only when the size is known.
        #expect(counts.dropFirst().allSatisfy { $0 == nil })
        if let first = counts.first { #expect((first != nil) == expected) }
        manifest?.entries = entries
        return manifest
    }

    @Test(arguments: [64, 1_000, 65_536, ManifestStreamReader.chunkSize])
    func readsThePackersLayoutAsTheWholeTextReads(chunk: Int) throws {
        let manifest = Self.manifest(3_000)
        let bytes = try manifest.encodedJSON()
        #expect(try Self.streamed(bytes, chunk: chunk) == manifest)
        #expect(try Self.streamed(bytes, chunk: chunk, expected: false) == manifest)
    }

    /// Past ``ManifestDirectReader/splitSize`` a chunk is read in two halves on two threads; short reads
    /// from the stream change nothing.
    @Test func aLongManifestReadsTheSameInHalvesAndFromShortReads() throws {
        let manifest = Self.manifest(20_000)
        let bytes = try manifest.encodedJSON()
        #expect(bytes.count > 3 * ManifestDirectReader.splitSize)
        #expect(try Self.streamed(bytes, chunk: 2 * ManifestDirectReader.splitSize + 17) == manifest)
        #expect(try Self.streamed(Array(bytes.prefix(200_000)) + Array(try Self.manifest(0).encodedJSON()), chunk: 4_096,
                                  trickle: true) == nil)  // not one manifest: left to the whole-text reader
        #expect(try Self.streamed(try Self.manifest(500).encodedJSON(), chunk: 300, trickle: true) == Self.manifest(500))
    }

    @Test func anEmptyEntryListReads() throws {
        let empty = BundleManifest(threshold: 1, generator: "g", entries: [])
        #expect(try Self.streamed(try empty.encodedJSON(), chunk: 64) == empty)
    }

    /// Any other layout, a cut-off text, a second `entries` member or text after the manifest gives nil:
    /// the caller then reads the text whole, and that reader decides and words the error.
    @Test func otherTextsAreLeftToTheWholeTextReader() throws {
        let bytes = try Self.manifest(300).encodedJSON()
        let text = String(decoding: bytes, as: UTF8.self)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let others: [[UInt8]] = [
            Array(try encoder.encode(Self.manifest(300))),  // pretty-printed: another layout
            Array(bytes.dropLast(40)),  // cut off inside the members after the entries
            Array(bytes.prefix(bytes.count / 2)),  // cut off inside the entries
            Array(text.replacingOccurrences(of: #""format":2"#, with: #""entries":[],"format":2"#).utf8),
            bytes + Array("{}".utf8),
            Array(text.replacingOccurrences(of: "},\n{", with: "},\n\n{\"kind\": 7},{").utf8),  // an entry that is not one
        ]
        for other in others {
            #expect(try Self.streamed(other, chunk: 1_000) == nil)
        }
    }

    /// A text longer than the limit fails as the whole-text read does, while it is read.
    @Test func theLimitHoldsWhileReading() throws {
        let bytes = try Self.manifest(3_000).encodedJSON()
        let error = #expect(throws: AssetPackError.self) { try Self.streamed(bytes, chunk: 4_096, limit: bytes.count - 1) }
        #expect(error?.code == .limitExceeded && error?.path == "m")
        #expect(try Self.streamed(bytes, chunk: 4_096, limit: bytes.count) != nil)
    }

    /// Through ``BundleManifest/read(from:)``: a bundle's manifest in the packer's layout and one laid out
    /// otherwise read the same, and a broken one is the same error either way.
    @Test func bundlesReadTheSameWhicheverReaderTakesTheText() throws {
        let scratch = try TemporaryDirectory("manifest-stream")
        let manifest = Self.manifest(2_000)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        for (name, bytes) in [("packer", try manifest.encodedJSON()), ("pretty", Array(try encoder.encode(manifest)))] {
            let folder = scratch.file(name + "/assetpack-meta")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
            #expect(try BundleManifest.read(from: DirectorySource(root: scratch.file(name))) == manifest)
        }
        var broken = manifest
        broken.entries[5].size = 1  // the identity no longer matches
        let folder = scratch.file("broken/assetpack-meta")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(try broken.encodedJSON()).write(to: URL(fileURLWithPath: folder + "/manifest.json"))
        let error = #expect(throws: AssetPackError.self) { try BundleManifest.read(from: DirectorySource(root: scratch.file("broken"))) }
        #expect(error?.code == .manifest)
        #expect(error?.message.contains("identity does not match") == true)
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
        var both = ManifestStreamReaderTests.manifest(200)
        both.entries[3].sha256 = "xyz"
        both.identity = "0"
        let contents = #expect(throws: AssetPackError.self) { try BundleManifestSinkTests.read(both, in: scratch.file("both")) }
        #expect(contents?.message.contains("not 64 lowercase hex digits") == true)
        var identity = ManifestStreamReaderTests.manifest(200)
        identity.identity = "0"
        let mismatch = #expect(throws: AssetPackError.self) { try BundleManifestSinkTests.read(identity, in: scratch.file("identity")) }
        #expect(mismatch?.message.contains("identity does not match") == true)
        #expect(try BundleManifestSinkTests.read(ManifestStreamReaderTests.manifest(200), in: scratch.file("good"))
                == ManifestStreamReaderTests.manifest(200))
    }
}

/// Hands out at most 7 bytes a read.
private final class TrickleStream: ByteStream {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = min(buffer.count, bytes.count - position, 7)
        guard count > 0 else { return 0 }
        for index in 0..<count { buffer[index] = bytes[position + index] }
        position += count
        return count
    }
}
