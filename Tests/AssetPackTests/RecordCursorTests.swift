import AssetPackSystem
import Foundation
import Testing
import TestSupport
@testable import AssetPack

/// ``RecordCursor``: an installed record's files read one at a time alongside a plan's paths in path order,
/// as an upgrade compares each window with the record, nothing of the record held.
@Suite struct RecordCursorTests {
    /// A cursor over a tree whose record lists `files` (JSON objects), other lists before and after;
    /// a record that says its lists are in path order unless `ordered` is false.
    func cursor(_ files: [String], in dir: TemporaryDirectory, ordered: Bool = true) throws -> RecordCursor? {
        try writeRecord(Array(("{" + (ordered ? "\"collation\":\"path\"," : "")
                      + "\"directories\":[{\"mode\":493,\"path\":\"a\"}],\"files\":["
                      + files.joined(separator: ",") + "],\"format\":1,\"links\":[],\"stamp\":\"s\"}").utf8), ofTree: dir.path)
        return RecordCursor(tree: try Descriptor.directory(dir.path))
    }

    func file(_ path: String, crc: Int? = 7, sha256: String? = nil) -> String {
        "{\"path\":\"\(path)\",\"size\":3,\"mode\":420" + (crc.map { ",\"crc32\":\($0)" } ?? "")
            + (sha256.map { ",\"sha256\":\"\($0)\"" } ?? "") + "}"
    }

    func look(_ cursor: RecordCursor, _ path: String) -> InstallRecord.File? {
        cursor.files(at: [(0, Array(path.utf8))])[0]
    }

    @Test func filesAskedInPathOrderAreFoundWithTheirAttributes() throws {
        let dir = try TemporaryDirectory("record-cursor")
        let hash = String(repeating: "ab", count: 32)
        let cursor = try #require(try cursor([file("a"), file("a/b"), file("a/b/c.txt", sha256: hash), file("a/b.txt", crc: 9),
                                              file("b", crc: nil), file("b")], in: dir))
        #expect(look(cursor, "a")?.crc32 == 7)
        #expect(look(cursor, "a/a") == nil, "not listed")
        #expect(look(cursor, "a/b/c.txt")?.sha256 == hash)
        let file = try #require(look(cursor, "a/b.txt"))
        #expect(file.crc32 == 9 && file.size == 3 && file.mode == 420 && file.sha256 == nil)
        #expect(look(cursor, "b")?.crc32 == nil, "of a path listed twice, the first")
        #expect(look(cursor, "c") == nil)
    }

    /// A path before the last one asked (an archive's windows come in its writer's order) reads the record
    /// again from its start: every file is still found.
    @Test func aPathAskedOutOfOrderIsFoundByReadingAgain() throws {
        let dir = try TemporaryDirectory("record-cursor-again")
        let cursor = try #require(try cursor([file("a", crc: 1), file("a/b/c.txt", crc: 2), file("a/b.txt", crc: 3), file("b", crc: 4)], in: dir))
        for (path, crc) in [("b", 4), ("a/b.txt", 3), ("a", 1), ("a/b/c.txt", 2), ("a/b/c.txt", 2), ("b", 4)] {
            #expect(look(cursor, path)?.crc32 == UInt32(crc), "\(path)")
        }
    }

    /// A reader of a list the record's `counts` says is empty stops at the counts, before the lists: here the count
    /// of links is 0 while the text lists one (a record assetpack never writes), and the reader gives none; the file
    /// list, counted, is read.
    @Test func aListCountedEmptyIsNotReadPastTheOthers() throws {
        let dir = try TemporaryDirectory("record-counts")
        try writeRecord(Array(("{\"collation\":\"path\",\"counts\":{\"directories\":0,\"files\":1,\"links\":0},"
                               + "\"directories\":[],\"files\":[" + file("a") + "],\"format\":1,"
                               + "\"links\":[{\"path\":\"l\",\"target\":\"a\"}],\"stamp\":\"s\"}").utf8), ofTree: dir.path)
        let record = try #require(OrderedRecord(tree: try Descriptor.directory(dir.path)))
        let links = record.links()
        #expect(links.head == nil && !links.isBroken)
        #expect(record.files().head?.path == Array("a".utf8))
    }

    /// (The broken records are plain `installed.json`, as older installs wrote it: read the same way.)
    @Test func aTreeWithoutARecordOrWithABrokenOneHasNoCursor() throws {
        let dir = try TemporaryDirectory("record-cursor-none")
        #expect(RecordCursor(tree: try Descriptor.directory(dir.path)) == nil)
        try dir.write(".assetpack/installed.json", text: "{\"format\":1,\"stamp\":\"s\"}")
        #expect(RecordCursor(tree: try Descriptor.directory(dir.path)) == nil, "no file list")
        // A list that breaks off: the files before the break are found, none after.
        try dir.write(".assetpack/installed.json", text: "{\"files\":[" + file("a") + ",{\"path\":7}," + file("b") + "]}")
        let cursor = try #require(RecordCursor(tree: try Descriptor.directory(dir.path)))
        #expect(look(cursor, "a") != nil && look(cursor, "b") == nil)
    }

    /// A record that does not say it is in path order (an earlier version recorded an archive's install in its
    /// order) is read whole for each window: every file is found, a path listed twice gives its first.
    @Test func aRecordOutOfPathOrderIsMatchedWhole() throws {
        let dir = try TemporaryDirectory("record-cursor-unordered")
        let cursor = try #require(try cursor([file("b", crc: 4), file("a/b.txt", crc: 3), file("a", crc: 1), file("a/b/c.txt", crc: 2),
                                              file("b", crc: 5)], in: dir, ordered: false))
        let window = ["a", "a/b/c.txt", "a/b.txt", "b", "c"].enumerated().map { ($0.offset, Array($0.element.utf8)) }
        let found = cursor.files(at: window)
        #expect(found.mapValues { $0.crc32 } == [0: 1, 1: 2, 2: 3, 3: 4])
        #expect(look(cursor, "a/b.txt")?.crc32 == 3)
    }
}
