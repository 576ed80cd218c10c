@testable import AssetPack
import Testing

/// What a delivered file is fetched as (`DeliveredLayout`): the byte ranges of a packed entry and of each of
/// its blocks within the archive file, and a refusal of storage that does not add up.
@Suite struct DeliveredLayoutTests {
    static func entry(_ storage: BundleManifest.Storage, size: UInt64, offset: UInt64?, hashes: Int? = nil) -> BundleManifest.Entry {
        var storage = storage
        storage.dataOffset = offset
        storage.blockSHA256 = hashes.map { count in (0..<count).map { String(repeating: String($0), count: 64) } }
        return .file("big.bin", size: size, crc32: 1, storage: storage)
    }

    @Test func blocksCoverTheCompressedDataFromItsOffset() throws {
        let storage = BundleManifest.Storage.packed(archive: "big.bin.zip", entry: "big.bin", method: "deflate", compressedSize: 1000,
                                                    blocks: [[0, 0], [4096, 300], [8192, 700]])
        let layout = try DeliveredLayout(Self.entry(storage, size: 12_000, offset: 37, hashes: 3), origin: "test")
        #expect(layout.whole.range == 37..<1037 && layout.deflated)
        #expect(layout.blocks?.map(\.compressed) == [37..<337, 337..<737, 737..<1037])
        #expect(layout.blocks?.map(\.uncompressed) == [0..<4096, 4096..<8192, 8192..<12_000])
        let single = BundleManifest.Storage.packed(archive: "a.zip", entry: "a", method: "deflate", compressedSize: 50)
        let whole = try DeliveredLayout(Self.entry(single, size: 80, offset: 30), origin: "test")
        #expect(whole.whole.range == 30..<80 && whole.blocks == nil)
    }

    @Test(arguments: [
        ([[0, 10]], 1), ([[0, 0], [5, 50], [9, 50]], 3), ([[0, 0], [5, 100]], 2), ([[0, 0], [5]], 2), ([[0, 0], [5, 50]], 3),
    ] as [([[UInt64]], Int)])
    func storageThatDoesNotAddUpIsRefused(_ blocks: [[UInt64]], _ hashes: Int) {
        let storage = BundleManifest.Storage.packed(archive: "a.zip", entry: "a", method: "deflate", compressedSize: 100, blocks: blocks)
        let error = #expect(throws: AssetPackError.self) { try DeliveredLayout(Self.entry(storage, size: 20, offset: 0, hashes: hashes), origin: "test") }
        #expect(error?.code == .manifest)
    }

    @Test func aPackedEntryWithoutItsDataOffsetIsRefused() {
        let storage = BundleManifest.Storage.packed(archive: "a.zip", entry: "a", method: "deflate", compressedSize: 100)
        let error = #expect(throws: AssetPackError.self) { try DeliveredLayout(Self.entry(storage, size: 20, offset: nil), origin: "test") }
        #expect(error?.code == .manifest)
    }
}
