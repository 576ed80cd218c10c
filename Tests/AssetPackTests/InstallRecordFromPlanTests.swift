@testable import AssetPack
import Foundation
import Testing
import TestSupport

/// The record an expansion writes straight from its plan (``StagingFill/writeRecord(into:durable:)``, through
/// ``InstallRecordJSON``, from path components) is byte for byte what `JSONEncoder` with sorted keys and
/// unescaped slashes writes of the record read back from it: the same text the record value writes.
@Suite struct InstallRecordFromPlanTests {
    @Test func theRecordWrittenFromThePlanIsWhatJSONEncoderWritesOfIt() throws {
        let scratch = try TemporaryDirectory("record-from-plan")
        let archive = scratch.file("app.zip"), destination = scratch.file("assets")
        try ExpansionFixtures.zip(at: archive, [
            ("a.txt", Array("one".utf8), .deflate), ("d/q\"uo te/b.bin", [1, 2, 3], .stored),
            ("caf\u{E9}/\u{1F600}.png", [], .deflate), ("d/e/f/g.txt", [UInt8](repeating: 7, count: 5000), .deflate),
        ])
        _ = try AssetInstaller(source: ZipAssetSource(path: archive), destination: destination).installSynchronously()
        let written = try recordBytes(ofTree: destination)
        let read = try #require(InstallRecordReader.read(bytes: written))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(written == Array(try encoder.encode(read)) + [0x0A])
        #expect(read.json() == written)
        #expect(read.files.map(\.path).sorted() == ["a.txt", "caf\u{E9}/\u{1F600}.png", "d/e/f/g.txt", "d/q\"uo te/b.bin"])
        #expect(read.directories?.map(\.path).contains("d/q\"uo te") == true)
        #expect(read.source != nil)
    }
}
