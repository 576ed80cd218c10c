@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The record's lists (``InstallRecordLists``) past what they keep in memory go through temporary files
/// of the record folder, removed once `installed.json` is written: the text is the same either way.
@Suite struct InstallRecordListsTests {
    @Test func aRecordLargerThanItsMemoryIsTheSameText() throws {
        let dir = try TemporaryDirectory("record-lists")
        for index in 0..<1_500 { try dir.write("src/folder-\(index / 100)/a-file-with-a-longer-name-\(index).txt", []) }
        try mkdir(dir.file("src/empty"))
        let plan = try ExpansionPlanner.plan(DirectorySource(root: dir.file("src")))
        let checksums = ResultSlots<UInt32>(count: plan.items.count)
        for index in plan.items.indices where plan.items[index].kind == .file { checksums[index] = UInt32(index) }
        var texts: [[UInt8]] = []
        for limit in [InstallRecordLists.defaultMemoryLimit, 100] {
            let path = dir.file("tree-\(limit)")
            try mkdir(path)
            let tree = Descriptor(open(path, O_RDONLY | O_DIRECTORY), path: path)
            let lists = try InstallRecordLists(tree: tree, memoryLimit: limit)
            try lists.add(plan, checksums: checksums)
            let spooled = folderNames(path + "/.assetpack").filter { $0.hasPrefix(".assetpack-tmp-") }
            #expect(spooled.isEmpty == (limit != 100), "only the small limit spools to files: \(spooled)")
            try lists.write(into: tree, source: nil, stamp: plan.stamp)
            texts.append(try fileBytes(path + "/.assetpack/installed.json"))
            #expect(folderNames(path + "/.assetpack") == ["installed.json"])
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0].count > 64 << 10)
        let read = try #require(InstallRecordReader.read(bytes: texts[1]))
        #expect(read.files.count == 1_500 && read.directories?.count == 16)
    }
}
