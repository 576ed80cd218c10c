import AssetPackSystem
import Foundation
import Testing
import TestSupport
@testable import AssetPack

/// ``RecordedFiles``: an installed record's files in flat arrays, in path order, as an upgrade walks them.
@Suite struct RecordedFilesTests {
    /// The record of a tree whose `installed.json` lists `files` (JSON objects), read back.
    func recorded(_ files: [String]) throws -> RecordedFiles? {
        let dir = try TemporaryDirectory("recorded-files")
        try dir.write(".assetpack/installed.json", text: "{\"format\":1,\"stamp\":\"s\",\"files\":[" + files.joined(separator: ",") + "]}")
        return RecordedFiles.read(of: try Descriptor.directory(dir.path))
    }

    func file(_ path: String, crc: Int? = 7, sha256: String? = nil) -> String {
        "{\"path\":\"\(path)\",\"size\":3,\"mode\":420" + (crc.map { ",\"crc32\":\($0)" } ?? "")
            + (sha256.map { ",\"sha256\":\"\($0)\"" } ?? "") + "}"
    }

    func paths(_ files: RecordedFiles) -> [String] {
        (0..<files.count).map { index in files.withPath(index) { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func filesInPathOrderAreKeptWithTheirAttributes() throws {
        let hash = String(repeating: "ab", count: 32)
        let files = try #require(try recorded([file("a"), file("a/b"), file("a/b/c.txt", sha256: hash), file("a/b.txt", crc: 9)]))
        #expect(paths(files) == ["a", "a/b", "a/b/c.txt", "a/b.txt"])
        #expect(files[3].crc32 == 9 && files[3].size == 3 && files[3].mode == 420 && files[3].sha256 == nil)
        #expect(files[2].sha256 == SHA256Digest(hex: hash) && files[0].sha256 == nil)
    }

    @Test func filesThatCannotBeReusedAndRepeatsAreLeftOut() throws {
        // No CRC-32, a SHA-256 that is not hex: never reused. A path again: the first that can be reused counts.
        let files = try #require(try recorded([file("a", crc: nil), file("a"), file("b", sha256: "xyz"), file("c"), file("c", crc: 1)]))
        #expect(paths(files) == ["a", "c"])
        #expect(files[1].crc32 == 7)
    }

    /// A record not in path order (a tree installed from an archive lists its files in the archive's order)
    /// is sorted, and every file is found by its path.
    @Test func aRecordOutOfPathOrderIsSortedAndFound() throws {
        let files = try #require(try recorded([file("b"), file("a/b.txt", crc: 1), file("a", crc: 2), file("a/b/c.txt", crc: 3),
                                               file("b", crc: 4)]))
        #expect(paths(files) == ["a", "a/b/c.txt", "a/b.txt", "b"], "a folder's contents sort before its extensions")
        for (path, crc) in [("a", 2), ("a/b/c.txt", 3), ("a/b.txt", 1), ("b", 7)] {
            let index = try #require(Array(path.utf8).withUnsafeBufferPointer { files.find($0) }, "\(path)")
            #expect(files[index].crc32 == UInt32(crc), "\(path): the first listed counts")
        }
        #expect(Array("a/b".utf8).withUnsafeBufferPointer { files.find($0) } == nil)
        #expect(try recorded([]).map(\.count) == 0)
    }
}
