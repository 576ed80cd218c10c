@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// A whole install record as a value, as `installed.json` holds it: what the tests write (``json()``), read back
/// and compare with `JSONEncoder`'s text. (The library never holds a record whole: it writes one a window at a
/// time and reads one a list at a time.)
struct InstallRecordValue: Codable {
    var format = InstallRecord.currentFormat
    var stamp: String
    var files: [InstallRecord.File]
    var source: String?
    var directories: [InstallRecord.Directory]? = nil
    var links: [InstallRecord.Link]? = nil
    var collation: String? = nil
    var counts: InstallRecord.Counts? = nil
}

extension InstallRecordValue {
    /// `installed.json` of this record through ``InstallRecordJSON``, as installs write theirs
    /// (``InstallRecordLists``), handed to `emit` in pieces of about 64 KiB: the tests' writer of a record value.
    func writeJSON<Failure: Error>(_ emit: (borrowing [UInt8]) throws(Failure) -> Void) throws(Failure) {
        var json = InstallRecordJSON()
        json.begin(directories: directories != nil, inPathOrder: collation == InstallRecordJSON.collation, counts: counts)
        for directory in directories ?? [] {
            json.directory(mode: directory.mode, path: directory.path)
            try json.handOver(to: emit)
        }
        json.beginFiles(afterDirectories: directories != nil)
        for file in files {
            json.file(crc32: file.crc32, mode: file.mode, path: file.path, sha256: file.sha256, size: file.size,
                      onDisk: file.inode.flatMap { inode in file.mtime.map { (inode, $0) } })
            try json.handOver(to: emit)
        }
        json.endFiles(format: format, links: links != nil)
        for link in links ?? [] {
            json.link(path: link.path, target: link.target)
            try json.handOver(to: emit)
        }
        try json.end(afterLinks: links != nil, source: source, stamp: stamp, to: emit)
    }

    /// `installed.json` as one byte array (see ``writeJSON(_:)``).
    func json() -> [UInt8] {
        var whole: [UInt8] = []
        writeJSON { (bytes) throws(Never) in whole.append(contentsOf: bytes) }
        return whole
    }
}

extension InstallRecordReader {
    /// The record in `bytes` read as installs read one (``OrderedRecord``): each list through a reader of its
    /// own, an entry a call; nil when a list cannot be read, or the text is not the JSON of a record
    /// (`JSONDecoder`, which also gives the fields other than the lists). Read from a temporary file, with `limit`.
    static func read(bytes: [UInt8], limit: Int = 512 << 20) -> InstallRecordValue? {
        guard let scratch = try? TemporaryDirectory("record-read"),
              (try? Data(bytes).write(to: URL(fileURLWithPath: scratch.file("installed.json")))) != nil else { return nil }
        func list<Entry>(_ name: StaticString, _ next: (inout InstallRecordReader) -> Entry?) -> [Entry]?? {
            let fd = open(scratch.file("installed.json"), O_RDONLY)
            guard var reader = InstallRecordReader.list(name, of: Descriptor(fd, path: "installed.json"), limit: limit) else {
                return .some(nil)
            }
            var entries: [Entry] = []
            while let entry = next(&reader) { entries.append(entry) }
            return reader.isBroken ? nil : entries
        }
        guard var record = try? JSONDecoder().decode(InstallRecordValue.self, from: Data(bytes)),
              case let files?? = list("files", { $0.nextFile() }),
              let directories = list("directories", { $0.nextDirectory() }),
              let links = list("links", { $0.nextLink() }) else { return nil }
        record.files = files
        record.directories = directories
        record.links = links
        return record
    }
}

/// `installed.json` is written by hand (no encoder tree for 50,000 files); it must be exactly what
/// `JSONEncoder` writes, and read back by `JSONDecoder`.
@Suite struct InstallRecordTests {
    @Test func theHandWrittenRecordIsWhatJSONEncoderWrites() throws {
        let record = InstallRecordValue(stamp: "assetpack-1 tree abc zips=unpack", files: [
            .init(path: "a/b.txt", size: 3, crc32: 0xdeadbeef, mode: 0o644, inode: 1_234, mtime: 1_764_000_000_123_456_789),
            .init(path: "caf\u{E9}/q\"uo\\te.bin", size: 0, crc32: nil, mode: 0o755),
            .init(path: "\u{1F600}.png", size: 1 << 40, crc32: 0, mode: 0o600),
        ], source: "f00d")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(record.json() == Array(try encoder.encode(record)) + [0x0A])
        let decoded = try JSONDecoder().decode(InstallRecordValue.self, from: Data(record.json()))
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
        let record = InstallRecordValue(stamp: "assetpack-1 tree big", files: files, source: nil)
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

    /// What matters of a record, for comparing two.
    private func facts(_ record: InstallRecordValue?) -> [String]? {
        guard let record else { return nil }
        return ["\(record.format) \(record.stamp) \(record.source ?? "-")"]
            + record.files.map { "\($0.path)|\($0.size)|\($0.crc32.map { String($0) } ?? "-")|\($0.mode)|\($0.inode ?? 0)|\($0.mtime ?? 0)" }
    }

    private var sample: InstallRecordValue {
        InstallRecordValue(stamp: "assetpack-1 tree abc zips=unpack", files: [
            .init(path: "a/b.txt", size: 3, crc32: 0xdeadbeef, mode: 0o644, inode: .max, mtime: 1_764_000_000_123_456_789),
            .init(path: "caf\u{E9}/q\"uo\\te\u{1}\u{1F}.bin", size: 0, crc32: nil, mode: 0o755),
            .init(path: "\u{1F600}/x\ty.png", size: UInt64.max, crc32: UInt32.max, mode: 0o600),
        ], source: "f00d")
    }

    @Test func theStreamingReaderReadsWhatIsWrittenAndWhatJSONEncoderWrites() throws {
        #expect(facts(InstallRecordReader.read(bytes: sample.json())) == facts(sample))
        var bare = sample
        bare.source = nil
        #expect(facts(InstallRecordReader.read(bytes: bare.json())) == facts(bare))
        // Other spellings of the same record: pretty-printed, escaped slashes and \u escapes, unknown members.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        #expect(facts(InstallRecordReader.read(bytes: Array(try encoder.encode(sample)))) == facts(sample))
        let spelled = #"{ "stamp" : "s", "extra": {"a": [1, 2.5e3, true, null, "x"]}, "format": 1, "files": ["#
            + #"{"size": 2, "mode": 420, "crc32": null, "path": "a\/\u00e9\ud83d\ude00\n", "later": false}], "source": null}"#
        let read = InstallRecordReader.read(bytes: Array(spelled.utf8))
        #expect(read?.files.first?.path == "a/\u{E9}\u{1F600}\n")
        #expect(read?.files.first?.crc32 == nil)
        #expect(read?.stamp == "s")
    }

    /// Folders (with modes) and links (with targets) are recorded as the encoder writes them and read back;
    /// a record without them (written before they were) reads as nil.
    @Test func foldersAndLinksAreRecordedAndReadBack() throws {
        var record = InstallRecordValue(stamp: "assetpack-1 tree abc", files: [.init(path: "a/b.txt", size: 3, crc32: 7, mode: 0o644)],
                                   source: "f00d")
        record.directories = [.init(mode: 0o755, path: "a"), .init(mode: 0o700, path: "e\"mpty\u{1}")]
        record.links = [.init(path: "a/l", target: "b.txt"), .init(path: "up", target: "a/../a/b.txt")]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(record.json() == Array(try encoder.encode(record)) + [0x0A])
        let read = try #require(InstallRecordReader.read(bytes: record.json()))
        #expect(read.directories?.map { "\($0.path) \(String($0.mode, radix: 8))" } == ["a 755", "e\"mpty\u{1} 700"])
        #expect(read.links?.map { "\($0.path) -> \($0.target)" } == ["a/l -> b.txt", "up -> a/../a/b.txt"])
        #expect(facts(read) == facts(record))
        record.directories = []
        record.links = []
        #expect(record.json() == Array(try encoder.encode(record)) + [0x0A])
        #expect(InstallRecordReader.read(bytes: record.json())?.directories?.isEmpty == true)
        let old = try #require(InstallRecordReader.read(bytes: sample.json()))
        #expect(old.directories == nil && old.links == nil)
    }

    @Test func aLargeRecordIsReadFromItsFileAPieceAtATime() throws {
        let files = (0..<20_000).map { InstallRecord.File(path: "d\($0 % 9)/f-\($0).bin", size: UInt64($0), crc32: UInt32($0), mode: 0o644) }
        let record = InstallRecordValue(stamp: "big", files: files, source: nil)
        let read = try #require(InstallRecordReader.read(bytes: record.json()))
        #expect(read.files.count == files.count)
        #expect(zip(read.files, files).allSatisfy { $0.path == $1.path && $0.size == $1.size && $0.crc32 == $1.crc32 && $0.mode == $1.mode })
        #expect(InstallRecordReader.read(bytes: record.json(), limit: 100_000) == nil, "over the limit")
    }

    @Test(arguments: [
        "", "{", "[]", "null", #"{"files":[],"format":1}"#, #"{"files":[],"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":-1,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":1.5,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":18446744073709551616,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":1,"mode":4294967296}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":01,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"\ud800","size":1,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"\x","size":1,"mode":1}],"format":1,"stamp":"s"}"#,
        #"{"files":[{"path":"a","size":1,"mode":1},],"format":1,"stamp":"s"}"#,
        #"{"files":[],"format":1,"stamp":"s"} x"#,
        #"{"files":[],"format":1,"stamp":"s""#,
    ])
    func malformedRecordsAreUnreadable(_ text: String) throws {
        #expect(InstallRecordReader.read(bytes: Array(text.utf8)) == nil)
    }

    @Test func invalidUTF8AndRawControlCharactersAreUnreadable() throws {
        let valid = Array(#"{"files":[{"path":"ab","size":1,"mode":1}],"format":1,"stamp":"s"}"#.utf8)
        #expect(InstallRecordReader.read(bytes: valid) != nil)
        for bad: UInt8 in [0xFF, 0xC3, 0x01, 0x0A] {
            var bytes = valid
            bytes[20] = bad  // the "b" of the path
            #expect(InstallRecordReader.read(bytes: bytes) == nil, "byte \(bad)")
        }
    }
}
