@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The journal of written blocks beside a large file (see `BlockJournal`).
@Suite struct BlockJournalTests {
    @Test func recordsBlocksReopensAndClears() throws {
        let scratch = try TemporaryDirectory("block-journal")
        let folder = try Descriptor.directory(scratch.path)
        let journal = try BlockJournal.create(for: "level.bin", in: folder)
        for number in [0, 3, 4] { try journal.record(number) }
        let reopened = try #require(try BlockJournal.open(for: "level.bin", in: folder))
        #expect(try reopened.writtenBlocks(count: 8) == [0, 3, 4])
        #expect(try reopened.writtenBlocks(count: 4) == [0, 3], "blocks past the entry's count are ignored")
        try reopened.clear()
        #expect(try journal.writtenBlocks(count: 8).isEmpty)
        try BlockJournal.remove(for: "level.bin", in: folder)
        #expect(try BlockJournal.open(for: "level.bin", in: folder) == nil)
    }

    /// A journal that has another name (a hard link planted in its place) is never opened, and a new journal
    /// replaces the name without writing into the file it shared.
    @Test func aHardLinkedJournalIsNeverWrittenThrough() throws {
        let scratch = try TemporaryDirectory("block-journal-link")
        let folder = try Descriptor.directory(scratch.path)
        try writeBytes([9, 9, 9], to: scratch.file("victim"))
        #expect(link(scratch.file("victim"), scratch.file(BlockJournal.name(for: "level.bin"))) == 0)
        #expect(try BlockJournal.open(for: "level.bin", in: folder) == nil)
        try BlockJournal.create(for: "level.bin", in: folder).record(0)
        #expect(try fileBytes(scratch.file("victim")) == [9, 9, 9])
        #expect(try BlockJournal.open(for: "level.bin", in: folder)?.writtenBlocks(count: 2) == [0])
    }

    /// A data file may have a 255-byte name; its journal's name must still be a valid file name.
    @Test func theLongestNamesGetAJournalToo() throws {
        let scratch = try TemporaryDirectory("block-journal-long")
        let folder = try Descriptor.directory(scratch.path)
        let long = String(repeating: "a", count: 250), other = String(repeating: "a", count: 249) + "b"
        for name in [long, other] {
            #expect(BlockJournal.name(for: name).utf8.count <= 255)
            #expect(BlockJournal.isJournal(BlockJournal.name(for: name)))
            try BlockJournal.create(for: name, in: folder).record(1)
        }
        #expect(BlockJournal.name(for: long) != BlockJournal.name(for: other))
        #expect(try BlockJournal.open(for: long, in: folder)?.writtenBlocks(count: 2) == [1])
        #expect(BlockJournal.name(for: "x.bin") == ".assetpack-tmp-blocks-x.bin")
    }
}
