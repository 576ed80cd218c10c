import Testing
@testable import AssetPack

/// ``RecordMerge``: a record's paths, read in order, found among a plan's items without a table.
@Suite struct RecordMergeTests {
    static let items = try! ["a", "a/b", "a/b/c.txt", "a/b.txt", "d.txt"].map {
        ExpansionItem(path: try AssetPath($0), kind: .file, permissions: 0o644)
    }

    @Test func pathsInOrderAreFoundAndOthersAreNot() {
        var merge = RecordMerge(items: Self.items)
        #expect(merge.position(of: "a/b") == 1)
        #expect(merge.position(of: "a/b/c.txt") == 2)
        #expect(merge.position(of: "a/b/not-planned") == nil)
        #expect(merge.position(of: "d.txt") == 4)
        #expect(merge.position(of: "z") == nil)
        #expect(merge.inOrder)
    }

    @Test func aRepeatedPathIsSkippedAndAnEarlierOneEndsTheMerge() {
        var merge = RecordMerge(items: Self.items)
        #expect(merge.position(of: "a/b.txt") == 3)
        #expect(merge.position(of: "a/b.txt") == nil && merge.inOrder)
        #expect(merge.position(of: "a") == nil)
        #expect(!merge.inOrder)
        #expect(merge.position(of: "d.txt") == nil, "nothing is found once the record is out of order")
    }
}
