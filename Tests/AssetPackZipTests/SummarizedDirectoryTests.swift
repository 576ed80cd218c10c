import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// An archive whose central directory is larger than ``ZipLimits/maxHeldDirectoryBytes`` keeps a summary
/// instead of its entries: going through it (``ZipArchive/entries(from:)``), finding a name, reading and
/// verifying give what an archive holding its entries gives, and the entries are read into memory only
/// when asked for.
@Suite struct SummarizedDirectoryTests {
    /// An archive with folders, deflated and stored files, a name stored twice (once after `./`),
    /// entries whose data is not in directory order; the held and the summarized archive over it.
    static func archives() throws -> (held: ZipArchive, summarized: ZipArchive, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory("summarized")
        var random = SeededRandom(seed: 5)
        let writer = try ZipWriter(path: directory.file("a.zip"))
        try writer.addDirectory("d/")
        for index in 0..<40 {
            try writer.addFile("d/f\(index % 7)/\(index).txt", contents: random.text(Int(random.next() % 2_000)),
                               method: index % 3 == 0 ? .stored : .deflate)
        }
        try writer.addFile("./twice.txt", contents: Array("first".utf8))  // found as "twice.txt" too, and first
        try writer.addFile("twice.txt", contents: Array("second".utf8))
        try writer.addFile("./dot.txt", contents: Array("dot".utf8))
        try writer.finish(sync: false)
        var limits = ZipLimits.default
        limits.maxHeldDirectoryBytes = 0
        return (try ZipArchive(path: directory.file("a.zip")), try ZipArchive(path: directory.file("a.zip"), limits: limits), directory)
    }

    static func describe(_ entry: ZipEntry?) -> String {
        guard let entry else { return "nil" }
        return "\(entry.index) \(entry.name) \(entry.crc32) \(entry.localHeaderOffset) \(entry.dataLimit) \(entry.centralHeaderOffset)"
    }

    @Test func goingThroughASummarizedArchiveGivesTheEntriesOfAHeldOne() throws {
        let (held, summarized, _) = try Self.archives()
        #expect(held.holdsEntries && !summarized.holdsEntries)
        #expect(summarized.entryCount == held.entries.count)
        for first in [0, 1, 17, held.entries.count] {
            var scanner = summarized.entries(from: first)
            var found: [String] = []
            while let entry = try scanner.next() { found.append(Self.describe(entry)) }
            #expect(found == held.entries.dropFirst(first).map(Self.describe))
        }
        #expect(!summarized.holdsEntries, "going through it does not hold it")
    }

    @Test func namesAreFoundWithoutHoldingTheEntries() throws {
        let (held, summarized, _) = try Self.archives()
        for name in held.entries.map(\.name) + ["dot.txt", "./d/f1/1.txt", "missing.txt", "d/f1"] {
            #expect(Self.describe(summarized.entry(named: name)) == Self.describe(held.entry(named: name)), "\(name)")
        }
        #expect(try summarized.contents(of: try #require(summarized.entry(named: "twice.txt"))) == Array("first".utf8))
        #expect(!summarized.holdsEntries)
    }

    @Test func readingAndVerifyingASummarizedArchiveIsAsForAHeldOne() throws {
        let (held, summarized, _) = try Self.archives()
        #expect(try summarized.verify() == held.verify())
        #expect(!summarized.holdsEntries)
        // Asked for all of them, or for a folder's children, it reads the entries into memory.
        #expect(summarized.contentsOfDirectory("d") == held.contentsOfDirectory("d"))
        #expect(summarized.holdsEntries)
        #expect(summarized.entries.map(Self.describe) == held.entries.map(Self.describe))
        #expect(try readAllEntries(summarized) == readAllEntries(held))
    }
}
