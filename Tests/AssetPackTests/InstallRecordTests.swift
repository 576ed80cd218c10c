@testable import AssetPack
import Foundation
import Testing

/// `installed.json` is written by hand (no encoder tree for 50,000 files); it must be exactly what
/// `JSONEncoder` writes, and read back by `JSONDecoder`.
@Suite struct InstallRecordTests {
    @Test func theHandWrittenRecordIsWhatJSONEncoderWrites() throws {
        let record = InstallRecord(stamp: "assetpack-1 tree abc zips=unpack", files: [
            .init(path: "a/b.txt", size: 3, crc32: 0xdeadbeef, mode: 0o644),
            .init(path: "caf\u{E9}/q\"uo\\te.bin", size: 0, crc32: nil, mode: 0o755),
            .init(path: "\u{1F600}.png", size: 1 << 40, crc32: 0, mode: 0o600),
        ], source: "f00d")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(record.json() == Array(try encoder.encode(record)) + [0x0A])
        let decoded = try JSONDecoder().decode(InstallRecord.self, from: Data(record.json()))
        #expect(decoded.files.map(\.path) == record.files.map(\.path))
        #expect(decoded.source == "f00d")
        var bare = record
        bare.source = nil
        #expect(bare.json() == Array(try encoder.encode(bare)) + [0x0A])
    }
}
