@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The check of an installed tree (`InstalledTreeCheck`): the tree walked in the record's path order with the
/// record read alongside (`OrderedRecord`), never held; a record of an older version or one out of order is
/// sorted first, with the same answers.
@Suite struct InstalledTreeCheckTests {
    /// Writes `record` (the record's JSON text) and a stamp into the tree at `tree`.
    private func writeRecord(_ record: String, into tree: String) throws {
        try TestSupport.writeRecord(Array(record.utf8), ofTree: tree)
        try Data("stamp\n".utf8).write(to: URL(fileURLWithPath: tree + "/.assetpack/identity"))
    }

    /// The check of the tree `name` in `scratch`, its problems as `path: detail` and its unknown names.
    private func check(_ scratch: TemporaryDirectory, _ name: String = "tree", readContents: Bool = false,
                       batch: Int = 8192) throws -> (problems: [String], unknown: [String], files: Int) {
        let tree = try Descriptor.directory(scratch.file(name))
        let record = try #require(OrderedRecord(tree: tree))
        let outcome = try InstalledTreeCheck(tree: tree, record: record, readContents: readContents, jobs: 2, batch: batch).run()
        return (outcome.problems.map(\.description), outcome.unknown, outcome.files)
    }

    @Test func aRecordWithoutFoldersImpliesThemAndReportsEachMissingPathOnce() throws {
        let scratch = try TemporaryDirectory("record-index-implied")
        for path in ["a/b/c.txt", "a/d.txt", "x/y/z.txt", "x/w.txt"] { try scratch.write("tree/" + path, text: "1") }
        for path in ["a/b/c.txt", "a/d.txt", "x/y/z.txt", "x/w.txt"] { try chmod(scratch.file("tree/" + path), 0o644) }
        // An older record: files only, a folder listed again after another (x), a path listed twice.
        try writeRecord("""
            {"format":1,"stamp":"stamp","files":[
              {"path":"x/y/z.txt","size":1,"mode":420},{"path":"a/b/c.txt","size":1,"mode":420},
              {"path":"a/d.txt","size":1,"mode":420},{"path":"x/w.txt","size":1,"mode":420},
              {"path":"a/d.txt","size":1,"mode":420}]}
            """, into: scratch.file("tree"))
        let whole = try check(scratch)
        #expect(whole.problems == [] && whole.unknown == [])
        #expect(whole.files == 5, "every listing counts, as the record's list does")

        try FileManager.default.removeItem(atPath: scratch.file("tree/x/y"))
        try FileManager.default.removeItem(atPath: scratch.file("tree/a/d.txt"))
        try scratch.write("tree/a/b/new.txt", text: "app data")
        let damaged = try check(scratch)
        #expect(damaged.problems == ["a/d.txt: missing", "x/y: missing", "x/y/z.txt: missing"])
        #expect(damaged.unknown == ["a/b/new.txt"])
    }

    @Test func aLinkWinsOverAFileOfTheSamePathAndItsRecordedTargetIsReported() throws {
        let scratch = try TemporaryDirectory("record-index-twice")
        try scratch.write("tree/d/target.txt", text: "t")
        try chmod(scratch.file("tree/d/target.txt"), 0o644)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("tree/d/link"), withDestinationPath: "target.txt")
        try writeRecord("""
            {"format":1,"stamp":"stamp","files":[{"path":"d/link","size":9,"mode":420},{"path":"d/target.txt","size":1,"mode":420}],
             "links":[{"path":"d/link","target":"target.txt"}]}
            """, into: scratch.file("tree"))
        #expect(try check(scratch).problems == [])
        try FileManager.default.removeItem(atPath: scratch.file("tree/d/link"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("tree/d/link"), withDestinationPath: "elsewhere")
        #expect(try check(scratch).problems == [#"d/link: links to "elsewhere", recorded "target.txt""#])
    }

    @Test func namesAreComparedByTheirBytes() throws {
        let scratch = try TemporaryDirectory("record-index-nfc")
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        try scratch.write("tree/" + decomposed + "/men\u{FC}.txt", text: "m")
        try chmod(scratch.file("tree/" + decomposed + "/men\u{FC}.txt"), 0o644)
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        try writeRecord("""
            {"collation":"path","format":1,"stamp":"stamp","files":[{"path":"\(composed)/menu\u{308}.txt","size":1,"mode":420}]}
            """, into: scratch.file("tree"))
        let result = try check(scratch)
        #expect(result.problems == ["\(composed): missing", "\(composed)/menu\u{308}.txt: missing"],
                "two spellings of a name are two files, as AssetPath has it")
        #expect(result.unknown == [decomposed + "/"])
    }

    /// A record whose lists claim path order but are not in it (edited by hand), and one in path order where
    /// plain byte order differs (`a/…` before `a-b`), give the answers of a record in order.
    @Test func aRecordOutOfOrderIsSortedAndOneInPathOrderIsReadAlongside() throws {
        let scratch = try TemporaryDirectory("record-order")
        let paths = ["a/x.txt", "a-b", "a.txt", "b/c/d.txt"]
        for path in paths {
            try scratch.write("tree/" + path, text: "1")
            try chmod(scratch.file("tree/" + path), 0o644)
        }
        try scratch.write("tree/a/mine.txt", text: "mine")
        func record(_ order: [String]) -> String {
            let files = order.map { #"{"path":"\#($0)","size":1,"mode":420}"# }.joined(separator: ",")
            return #"{"collation":"path","directories":[{"path":"a","mode":493},{"path":"b","mode":493},{"path":"b/c","mode":493}],"files":[\#(files)],"format":1,"stamp":"stamp"}"#
        }
        for order in [paths, paths.reversed(), ["a-b", "a/x.txt", "b/c/d.txt", "a.txt"]] {
            for path in ["a", "b", "b/c"] { try chmod(scratch.file("tree/" + path), 0o755) }
            try writeRecord(record(order), into: scratch.file("tree"))
            let result = try check(scratch)
            #expect(result.problems == [] && result.unknown == ["a/mine.txt"], "\(order)")
            try FileManager.default.removeItem(atPath: scratch.file("tree/b/c"))
            #expect(try check(scratch).problems == ["b/c: missing", "b/c/d.txt: missing"], "\(order)")
            try scratch.write("tree/b/c/d.txt", text: "1")
            try chmod(scratch.file("tree/b/c/d.txt"), 0o644)
        }
    }

    @Test(arguments: [1, 3, 8192])
    func contentsAreReadABatchAtATimeAndEveryDifferenceIsFound(batch: Int) throws {
        let scratch = try TemporaryDirectory("record-index-batches")
        let tree = AssetTree(files: Dictionary(uniqueKeysWithValues: (0..<20).map { ("f/\($0 / 5)/\($0).bin", Array(repeating: UInt8($0), count: 100 + $0)) }))
        try tree.write(to: scratch.file("source"))
        try AssetInstaller(source: DirectorySource(root: scratch.file("source")), destination: scratch.file("tree")).installSynchronously()
        for number in [0, 7, 13, 19] { try TreeDamage.flipByte(scratch.file("tree/f/\(number / 5)/\(number).bin"), at: 3) }
        let result = try check(scratch, readContents: true, batch: batch)
        #expect(result.problems.map { String($0.prefix { $0 != ":" }) } == ["f/0/0.bin", "f/1/7.bin", "f/2/13.bin", "f/3/19.bin"])
        #expect(result.problems.allSatisfy { $0.contains("contents differ") })
        #expect(try check(scratch, readContents: false, batch: batch).problems == [], "sizes and modes are unchanged")
    }

    @Test func anUnreadableRecordIsOneProblem() throws {
        let scratch = try TemporaryDirectory("record-index-bad")
        try scratch.write("tree/a.txt", text: "a")
        try writeRecord(#"{"format":1,"stamp":"stamp","files":[{"path":"a.txt","size":1}]}"#, into: scratch.file("tree"))
        let status = try InstalledTree.status(at: scratch.file("tree"))
        #expect(status.problems.map(\.description) == [".assetpack/installed.json.gz: missing or unreadable; nothing could be checked"])
    }
}
