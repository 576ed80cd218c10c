import AssetPackZip
import Testing
@testable import AssetPack

@Suite struct VerifyingStreamTests {
    let data = Array("the quick brown fox".utf8)

    private func verifying(_ bytes: [UInt8], size: Int? = nil, crc: UInt32? = nil) -> VerifyingStream {
        VerifyingStream(MemoryStream(bytes), expectedSize: UInt64(size ?? data.count),
                        expectedCRC: crc ?? CRC32.checksum(data), name: "assets/fox.txt")
    }

    @Test func passesMatchingData() throws {
        let stream = verifying(data)
        #expect(try stream.readAll() == data)
        #expect(stream.bytesRead == UInt64(data.count))
        #expect(try VerifyingStream(MemoryStream([]), expectedSize: 0, expectedCRC: 0, name: "empty").readAll() == [])
    }

    @Test func passesMatchingDataReadByteByByte() throws {
        let stream = verifying(data)
        var out: [UInt8] = []
        var byte: UInt8 = 0
        while try withUnsafeMutableBytes(of: &byte, { (raw) throws(ZipError) -> Int in try stream.read(into: raw) }) == 1 {
            out.append(byte)
        }
        #expect(out == data)
    }

    @Test(arguments: [
        ("CRC-32 mismatch", Array("the quick brown fix".utf8)),
        ("size mismatch: expected 19 bytes (recorded in the manifest), data has 9", Array("the quick".utf8)),
        ("size mismatch: expected 19 bytes (recorded in the manifest), data has more", Array("the quick brown fox jumps".utf8)),
    ])
    func refusesDataThatDiffers(expected message: String, actual: [UInt8]) throws {
        let stream = verifying(actual)
        let error = try #require(#expect(throws: ZipError.self) { try stream.readAll() })
        #expect(error.code == .verification)
        #expect(error.message.contains(message), "\(error)")
        let converted = AssetPackError(error)
        #expect(converted.code == .verification)
        #expect(converted.description.hasPrefix("assets/fox.txt: "))
        // Spent: the same error again.
        #expect(throws: ZipError.self) { try stream.readAll() }
    }

    /// With room for everything, the damaged data never reaches the caller: the one read throws.
    @Test func withholdsTheLastBytesOfBadData() throws {
        let stream = verifying(Array("the quick brown fix".utf8))
        var buffer = [UInt8](repeating: 0, count: 1_000)
        #expect(throws: ZipError.self) {
            try buffer.withUnsafeMutableBytes { (raw) throws(ZipError) -> Int in try stream.read(into: raw) }
        }
    }
}
