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

    /// A record of 5,000 files is handed over in pieces of about 64 KiB (never whole), and the pieces
    /// joined are still exactly the encoder's text.
    @Test func aLargeRecordIsWrittenInPieces() throws {
        let files = (0..<5_000).map { InstallRecord.File(path: "level\($0 % 7)/file-\($0).json", size: UInt64($0 * 31),
                                                           crc32: UInt32(truncatingIfNeeded: $0 &* 2_654_435_761), mode: 0o644) }
        let record = InstallRecord(stamp: "assetpack-1 tree big", files: files, source: nil)
        var pieces: [Int] = []
        var joined: [UInt8] = []
        record.writeJSON { (bytes) throws(Never) in
            pieces.append(bytes.count)
            joined.append(contentsOf: bytes)
        }
        #expect(pieces.count > 4)
        #expect(pieces.max()! < 64 * 1024 + 4096)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(joined == Array(try encoder.encode(record)) + [0x0A])
    }
}
