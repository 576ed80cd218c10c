import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// ``ZipArchive/entry(named:after:)``: the entry right after the one named by position is taken when its
/// name has exactly the bytes asked for; anything else is found through the index, as with
/// ``ZipArchive/entry(named:)``.
@Suite struct EntryLookupTests {
    /// An archive holding `names` (each a few bytes) in that order.
    static func archive(_ names: [String], in dir: TemporaryDirectory) throws -> ZipArchive {
        let path = dir.file("lookup.zip")
        let writer = try ZipWriter(path: path, options: .deterministic())
        for name in names { try writer.addFile(name, contents: Array(name.utf8), method: .stored) }
        try writer.finish()
        return try ZipArchive(path: path)
    }

    @Test func theNextEntryIsTakenAndAnyOtherIsFoundThroughTheIndex() throws {
        let dir = try TemporaryDirectory("entry-lookup")
        let archive = try Self.archive(["b/2.txt", "a/1.txt", "c/3.txt"], in: dir)
        #expect(archive.entry(named: "b/2.txt", after: -1)?.index == 0)
        #expect(archive.entry(named: "a/1.txt", after: 0)?.index == 1)
        // A wrong hint (or one out of range) still finds the entry.
        #expect(archive.entry(named: "c/3.txt", after: 0)?.index == 2)
        #expect(archive.entry(named: "a/1.txt", after: 2)?.index == 1)
        #expect(archive.entry(named: "a/1.txt", after: 99)?.index == 1)
        #expect(archive.entry(named: "a/1.txt", after: -5)?.index == 1)
        #expect(archive.entry(named: "d/4.txt", after: 0) == nil)
    }

    @Test func namesAreComparedByTheirBytes() throws {
        let dir = try TemporaryDirectory("entry-lookup-bytes")
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"  // equal as Swift strings
        let archive = try Self.archive([composed, "x.txt"], in: dir)
        #expect(archive.entry(named: decomposed, after: -1) == nil)
        #expect(archive.entry(named: composed, after: -1)?.index == 0)
        #expect(archive.entry(named: "X.txt", after: 0) == nil)
    }

    /// The first lookups go through the entries, later ones through the table: both find the first entry of
    /// a name, compare bytes, and find nothing for a name that is not there.
    @Test func lookupsBeforeAndAfterTheTableAgree() throws {
        let dir = try TemporaryDirectory("entry-lookup-table")
        let names = (0..<40).map { "d\($0 % 4)/f\($0).txt" } + ["d1/f5.txt", "caf\u{E9}.txt"]  // one name twice
        try Data(RawZip(names.map { RawZip.file($0, [1]) }).bytes).write(to: URL(fileURLWithPath: dir.file("twice.zip")))
        let archive = try ZipArchive(path: dir.file("twice.zip"))
        let asked = ["d1/f5.txt", "missing", "cafe\u{301}.txt", "caf\u{E9}.txt", "d3/f39.txt"]
        let expected: [Int?] = [5, nil, nil, 41, 39]
        for round in 0..<3 {  // more lookups than are answered without the table
            #expect(asked.map { archive.entry(named: $0)?.index } == expected, "round \(round)")
        }
        #expect(ZipIndex.scansBeforeTable < asked.count * 3)
    }
}
