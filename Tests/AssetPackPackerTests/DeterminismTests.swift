import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Determinism: the same tree gives the same bytes.
@Suite struct DeterminismTests {
    /// Writes the same tree; `reversed` creates the files and folders in the opposite order.
    static func writeTree(_ dir: TemporaryDirectory, _ name: String, reversed: Bool) throws {
        var random = SeededRandom(seed: 21)
        var files: [(String, [UInt8])] = [
            ("b/big.txt", random.text(1_300_000)), ("b/noise.bin", random.bytes(1_100_000)), ("a/small.json", Array("{}".utf8)),
            ("z.txt", Array("last".utf8)), ("A.txt", Array("upper".utf8)), ("é/x", [1, 2, 3]), ("e/x", [4, 5]),
        ]
        var folders = ["empty", "c/d/e"]
        if reversed {
            files.reverse()
            folders.reverse()
        }
        for folder in folders { try mkdir(dir.file("\(name)/\(folder)")) }
        for (path, contents) in files { try dir.write("\(name)/\(path)", contents) }
    }

    @Test func twoBuildsAreByteIdentical() throws {
        let dir = try TemporaryDirectory("twice")
        try Self.writeTree(dir, "src", reversed: false)
        try build(dir.file("src"), dir.file("one"))
        try build(dir.file("src"), dir.file("two"))
        #expect(try bundleBytes(dir.file("one")) == bundleBytes(dir.file("two")))
    }

    @Test func creationOrderAndTimesDoNotMatter() throws {
        let dir = try TemporaryDirectory("order")
        try Self.writeTree(dir, "first", reversed: false)
        try Self.writeTree(dir, "second", reversed: true)
        // Other modification times and permissions that normalize to the same modes.
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        for path in ["b/big.txt", "b/noise.bin", "z.txt", "a", "empty"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir.file("second/\(path)"))
        }
        try chmod(dir.file("second/z.txt"), 0o600)
        try build(dir.file("first"), dir.file("one"))
        try build(dir.file("second"), dir.file("two"))
        #expect(try bundleBytes(dir.file("one")) == bundleBytes(dir.file("two")))
        #expect(try FileManager.default.attributesOfItem(atPath: dir.file("two/z.txt"))[.posixPermissions] as? Int == 0o644)
    }

    @Test func archivesCarryTheFixedTimestamp() throws {
        let dir = try TemporaryDirectory("time")
        try Self.writeTree(dir, "src", reversed: false)
        try build(dir.file("src"), dir.file("out"))
        let archive = try ZipArchive(path: dir.file("out/b/big.txt.zip"))
        let expected = DOSDateTime(unixTime: ZipWriterOptions.sourceDateEpoch ?? 315_532_800)
        #expect(archive.entries.first?.modified == expected)
        #expect(archive.entries.first?.permissions == 0o644)
    }

    @Test func manifestSortsByUTF8Bytes() throws {
        let dir = try TemporaryDirectory("sort")
        try Self.writeTree(dir, "src", reversed: false)
        try build(dir.file("src"), dir.file("out"))
        let paths = try readManifest(dir.file("out")).entries.map(\.path)
        #expect(paths.first == "A.txt")
        #expect(paths.firstIndex(of: "e/x")! < paths.firstIndex(of: "z.txt")!)
        #expect(paths.firstIndex(of: "z.txt")! < paths.firstIndex(of: "é/x")!)
    }
}
