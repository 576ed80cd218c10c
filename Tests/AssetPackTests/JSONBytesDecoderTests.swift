import Foundation
import Testing
import TestSupport
@testable import AssetPack

/// The in-place JSON decoder reads what `JSONDecoder` reads, and refuses what it refuses.
@Suite struct JSONBytesDecoderTests {
    struct Sample: Codable, Equatable {
        var text: String
        var count: UInt64
        var small: UInt32?
        var flag: Bool
        var ratio: Double
        var nested: [[UInt64]]?
        var child: Child?
        struct Child: Codable, Equatable { var name: String }
    }

    func both<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws -> T {
        let mine = try JSONBytesDecoder.decode(type, from: Array(json.utf8))
        let theirs = try JSONDecoder().decode(type, from: Data(json.utf8))
        #expect(mine == theirs)
        return mine
    }

    @Test func readsWhatJSONDecoderReads() throws {
        let json = #"""
        { "text": "a\"b\\c\/d\n\t\u00e9\ud83d\ude00 日本", "count": 18446744073709551615, "flag": true, "ratio": -1.5e3,
          "nested": [[0, 1], [], [2]], "unknown": {"deep": [1, {"x": null}], "s": "\u0000"}, "child": {"name": ""},
          "small": null }
        """#
        let sample = try both(Sample.self, json)
        #expect(sample.text == "a\"b\\c/d\n\té😀 日本" && sample.count == UInt64.max && sample.small == nil)
        #expect(try both(Sample.self, #"{"text":"","count":0,"flag":false,"ratio":0,"small":7}"#).small == 7)
        #expect(try both([String].self, #"  ["x", "y"]  "#) == ["x", "y"])
    }

    @Test func aManifestDecodesAsWithJSONDecoder() throws {
        var manifest = BundleManifest(threshold: 5, generator: "g", entries: [
            .directory("d"),
            .file("d/é.txt", size: 3, crc32: 0xFFFF_FFFF, storage: .packed(archive: "p/1.zip", entry: "d/é.txt", method: "deflate",
                                                                            compressedSize: 9, blocks: [[0, 0], [65536, 100]]), mode: 0o755),
            .file("a", size: 0, crc32: 0, storage: .plain("a")),
        ])
        manifest.packing = "x"
        let bytes = try manifest.encodedJSON()
        #expect(try JSONBytesDecoder.decode(BundleManifest.self, from: bytes) == manifest)
        #expect(try BundleManifest.decode(bytes, origin: "m") == manifest)
    }

    @Test(arguments: [
        "", "  ", "{", "{\"a\":1,}", "{\"a\" 1}", "[1 2]", "\"open", "[\"\u{01}\"]", "01", "1.", "-", "1e",
        "[tru]", "nul", "{\"a\":1} x", "{a:1}", "[\"\\x\"]", "[\"\\u12\"]",
    ])
    func refusesBrokenSyntax(_ json: String) {
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([Int].self, from: Array(json.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Int].self, from: Data(json.utf8)) }
    }

    @Test func refusesWrongTypesRangesDepthAndBadUTF8() {
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([UInt8].self, from: Array("[256]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([UInt64].self, from: Array("[-1]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([Int].self, from: Array("[1.5]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([String].self, from: Array("[1]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode(Sample.self, from: Array(#"{"text":"x"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([String].self, from: Array("[\"".utf8) + [0xC3, 0x28] + Array("\"]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([String].self, from: Array(#"["\ud800"]"#.utf8)) }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: DecodingError.self) { try JSONBytesDecoder.decode([Int].self, from: Array(deep.utf8)) }
    }

    @Test func everyCutOfAManifestIsRefusedOrDecodesTheSame() throws {
        let manifest = BundleManifest(threshold: 5, generator: "g", entries: [.file("a", size: 1, crc32: 2, storage: .plain("a"))])
        let bytes = try manifest.encodedJSON()
        for length in 0..<(bytes.count - 1) {
            let cut = Array(bytes[..<length])
            let mine = try? JSONBytesDecoder.decode(BundleManifest.self, from: cut)
            let theirs = try? JSONDecoder().decode(BundleManifest.self, from: Data(cut))
            #expect(mine == theirs, "cut at \(length)")
        }
    }
}

/// ``JSONEscape/firstSpecialByte(_:from:to:)`` finds what a byte-by-byte scan finds, at every offset of a
/// word and next to every byte value.
@Suite struct JSONSpecialByteTests {
    @Test func theWordScanFindsTheFirstByteAByteScanFinds() {
        var random = SeededRandom(seed: 7)
        let plain = Array("abcdefghijklmnopqrstuvwxyz0123456789/-_.é€".utf8)
        for _ in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in plain.randomElement(using: &random)! }
            if !bytes.isEmpty, Bool.random(using: &random) {
                // One special byte, or a byte next to one (0x1F/0x20, 0x21/0x23, 0x5B/0x5D, 0x7F, 0x80, 0xFF).
                let value: UInt8 = [0x00, 0x09, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF].randomElement(using: &random)!
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = value
            }
            let start = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            let expected = bytes[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? bytes.count
            let found = bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress.map { JSONEscape.firstSpecialByte($0, from: start, to: buffer.count) } ?? 0
            }
            #expect(found == expected, "\(bytes) from \(start)")
        }
    }
}
