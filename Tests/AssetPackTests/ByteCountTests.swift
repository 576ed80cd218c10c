import Testing
@testable import AssetPack

/// Byte counts written for people and parsed from a command line.
@Suite struct ByteCountTests {
    @Test(arguments: [
        ("0", 0), ("1048576", 1_048_576), ("512K", 524_288), ("512k", 524_288), ("4M", 4_194_304),
        ("4MiB", 4_194_304), ("4MB", 4_194_304), ("1G", 1_073_741_824), ("100B", 100),
    ] as [(String, UInt64)])
    func parsesSizes(text: String, bytes: UInt64) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", "K", "-1", "1.5M", "12Q", "١٢", "99999999999999999999", "20000000000T"])
    func rejectsNonSizes(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    @Test func formatsSizes() {
        #expect(ByteCount.text(812) == "812 B")
        #expect(ByteCount.text(1536) == "1.5 KiB")
        #expect(ByteCount.text(4 << 20) == "4.0 MiB")
    }
}
