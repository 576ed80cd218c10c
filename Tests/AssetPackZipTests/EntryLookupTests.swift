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
}
