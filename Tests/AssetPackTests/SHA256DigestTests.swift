import Testing
@testable import AssetPack

/// A plan holds each file's SHA-256 as its 32 bytes (``SHA256Digest``): it reads back as the same 64 hex
/// digits, takes only what a manifest may hold, and the record written from it is the record written from
/// the text.
@Suite struct SHA256DigestTests {
    static let samples = ["e612068aaf1add3cee93005e91016006ed7ad748bb4fdd2b5d40b9148daa1f5a",
                          String(repeating: "0", count: 64), String(repeating: "f", count: 64),
                          "0123456789abcdef" + "fedcba9876543210" + "00ff00ff00ff00ff" + "a5a5a5a5a5a5a5a5"]

    @Test func hexRoundTrips() throws {
        for hex in Self.samples {
            let digest = try #require(SHA256Digest(hex: hex))
            #expect(digest.hex == hex)
            var bytes: [UInt8] = [1]
            digest.appendHex(to: &bytes)
            #expect(bytes == [1] + Array(hex.utf8))
        }
        #expect(Set(Self.samples.compactMap(SHA256Digest.init(hex:))).count == Self.samples.count)
    }

    @Test func onlySixtyFourLowercaseHexDigitsAreTaken() {
        let good = Self.samples[0]
        for bad in [good.uppercased(), String(good.dropLast()), good + "0", "", String(good.dropLast()) + "g",
                    String(good.dropLast()) + " ", String(good.dropLast(2)) + "é"] {
            #expect(SHA256Digest(hex: bad) == nil, "\(bad)")
            #expect(!ContentDigest.isHex(bad) || SHA256Digest(hex: bad) != nil)
        }
    }

    @Test func theRecordLineIsTheSameFromBytesAsFromText() throws {
        for hex in Self.samples + [nil] {
            var text = InstallRecordJSON(), bytes = InstallRecordJSON()
            text.begin(directories: false)
            bytes.begin(directories: false)
            text.beginFiles(afterDirectories: false)
            bytes.beginFiles(afterDirectories: false)
            text.file(crc32: 7, mode: 0o644, path: "a/b.txt", sha256: hex, size: 9)
            bytes.file(crc32: 7, mode: 0o644, path: "a/b.txt", digest: hex.flatMap(SHA256Digest.init(hex:)), size: 9, onDisk: nil)
            var one: [UInt8] = [], two: [UInt8] = []
            text.endFiles(format: 3, links: false)
            bytes.endFiles(format: 3, links: false)
            text.end(afterLinks: false, source: nil, stamp: "s") { one += $0 }
            bytes.end(afterLinks: false, source: nil, stamp: "s") { two += $0 }
            #expect(one == two && !one.isEmpty)
            #expect(String(decoding: one, as: UTF8.self).contains(hex ?? "crc32"))
        }
    }
}

/// A plan holds one ``ExpansionItem`` per file (a million for a million-file bundle): its stored properties
/// are laid out without padding, and what few items have is boxed.
@Suite struct ExpansionItemSizeTests {
    @Test func anItemTakesAtMost112Bytes() {
        #expect(MemoryLayout<ExpansionItem>.stride <= 112)
        #expect(MemoryLayout<SHA256Digest?>.size == 33)
    }
}
