import AssetPack
import Foundation
import Testing
import TestSupport

/// The install record is its JSON as one gzip member (`.assetpack/installed.json.gz`): smaller than the text by
/// about 3×, read by any gzip reader, and a tree installed before (a plain `installed.json`) is still up to date,
/// upgraded from its record, and given the compressed one. A damaged, cut or padded record is unreadable.
@Suite struct RecordCompressionTests {
    /// A tree of many files whose record compresses well, as real ones do (paths, digests, numbers).
    static let tree = AssetTree(files: Dictionary(uniqueKeysWithValues: (0..<300).map { index in
        ("levels/world-\(index / 30)/level-\(index).dat", (0..<(100 + index)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
    }))

    /// The tree with one file changed and one added.
    static func v2() -> AssetTree {
        var files = tree.files
        files["levels/world-1/level-31.dat"] = Array("changed".utf8)
        files["levels/new/level-300.dat"] = Array("added".utf8)
        return AssetTree(files: files)
    }

    struct Stage {
        let scratch: TemporaryDirectory
        var destination: String { scratch.file("out") }

        init(_ label: String) throws {
            scratch = try TemporaryDirectory(label)
            try ExpansionFixtures.bundle(RecordCompressionTests.tree, packed: [:], at: scratch.file("v1"), scratch: scratch)
            try ExpansionFixtures.bundle(RecordCompressionTests.v2(), packed: [:], at: scratch.file("v2"), scratch: scratch)
        }

        func installer(_ version: String, inPlace: Bool = false) throws -> AssetInstaller {
            var options = ExpansionOptions(jobs: 1)
            options.upgradesInPlace = inPlace
            return try AssetInstaller(source: DirectorySource(root: scratch.file(version)), destination: destination, options: options)
        }

        /// Turns the installed record into the plain `installed.json` of an install made before records were
        /// compressed.
        func makeRecordPlain() throws {
            let text = try recordBytes(ofTree: destination)
            try writeBytes(text, to: destination + "/.assetpack/installed.json")
            try FileManager.default.removeItem(atPath: destination + "/.assetpack/installed.json.gz")
        }
    }

    @Test func theRecordIsOneGzipMemberThatGzipReadersRead() throws {
        let stage = try Stage("record-gzip")
        _ = try stage.installer("v1").installSynchronously()
        #expect(folderNames(stage.destination + "/.assetpack") == ["flushed", "identity", "installed.json.gz"])
        let compressed = try fileBytes(stage.destination + "/.assetpack/installed.json.gz")
        let text = try recordBytes(ofTree: stage.destination)
        #expect(Array(compressed.prefix(2)) == [0x1F, 0x8B])
        #expect(compressed.count * 3 < text.count, "compressed \(compressed.count) bytes of \(text.count)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(text)) as? [String: Any])
        #expect((record["files"] as? [[String: Any]])?.count == Self.tree.files.count)
        try ExternalTool.python3.require()
        let read = try run("python3", ["-c", "import gzip, sys; sys.stdout.buffer.write(gzip.open(sys.argv[1]).read())",
                                       stage.destination + "/.assetpack/installed.json.gz"])
        #expect(read.status == 0 && read.stdoutBytes == text, "\(read.stderr)")
    }

    /// A tree installed before records were compressed is up to date as it is, and an upgrade (switched or in
    /// place) reuses its unchanged files by that record, then leaves only the compressed record.
    @Test(arguments: [false, true])
    func aPlainRecordOfAnOlderInstallIsReadThenReplaced(inPlace: Bool) throws {
        let stage = try Stage("record-plain")
        _ = try stage.installer("v1").installSynchronously()
        try stage.makeRecordPlain()
        #expect(try stage.installer("v1").isUpToDate())
        #expect(try InstalledTree.status(at: stage.destination).problems.isEmpty)
        let kept = inodeNumber(stage.destination + "/levels/world-0/level-0.dat")
        let result = try stage.installer("v2", inPlace: inPlace).installSynchronously()
        #expect(result.filesLinked == Self.tree.files.count - 1, "every unchanged file reused: \(result)")
        #expect(inodeNumber(stage.destination + "/levels/world-0/level-0.dat") == kept)
        #expect(folderNames(stage.destination + "/.assetpack") == ["flushed", "identity", "installed.json.gz"])
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v2()))
        #expect(try stage.installer("v2").isUpToDate())
    }

    /// A gzip header with the optional fields `gzip` and others write (a name, a comment, an extra field, a header
    /// CRC) is read past: the record is the same.
    @Test func aRecordWhoseGzipHeaderHasOptionalFieldsIsRead() throws {
        let stage = try Stage("record-header")
        _ = try stage.installer("v1").installSynchronously()
        let path = stage.destination + "/.assetpack/installed.json.gz"
        var bytes = try fileBytes(path)
        bytes[3] = 0x04 | 0x08 | 0x10 | 0x02
        bytes.insert(contentsOf: [3, 0, 1, 2, 3] + Array("installed.json".utf8) + [0] + Array("a comment".utf8) + [0] + [0xAB, 0xCD],
                     at: 10)
        try writeBytes(bytes, to: path)
        #expect(try InstalledTree.status(at: stage.destination).problems.isEmpty)
        #expect(try stage.installer("v1").isUpToDate())
        let result = try stage.installer("v2").installSynchronously()
        #expect(result.filesLinked == Self.tree.files.count - 1, "the record was read: \(result)")
    }

    /// A compressed record cut short, padded with bytes after its end, or with a damaged byte is unreadable: the
    /// check says so, and an upgrade reuses nothing it cannot trust yet gives the exact new tree.
    @Test(arguments: ["cut", "padded", "damaged", "crc"])
    func aDamagedCompressedRecordIsUnreadable(_ damage: String) throws {
        let stage = try Stage("record-damaged")
        _ = try stage.installer("v1").installSynchronously()
        let path = stage.destination + "/.assetpack/installed.json.gz"
        var bytes = try fileBytes(path)
        switch damage {
        case "cut": bytes.removeLast(6)
        case "padded": bytes += [0x1F, 0x8B, 0, 0]
        case "crc": bytes[bytes.count - 8] ^= 0x01  // the stored CRC-32: the text itself inflates whole
        default: bytes[bytes.count - 3] ^= 0x01  // the stored length
        }
        try writeBytes(bytes, to: path)
        let status = try InstalledTree.status(at: stage.destination)
        #expect(status.problems.map(\.description) == [".assetpack/installed.json.gz: missing or unreadable; nothing could be checked"])
        _ = try stage.installer("v2").installSynchronously()
        #expect(DiskTree.read(stage.destination) == DiskTree(Self.v2()))
        #expect(try InstalledTree.status(at: stage.destination).problems.isEmpty)
    }
}
