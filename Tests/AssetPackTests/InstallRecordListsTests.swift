@testable import AssetPack
import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The record's lists (``InstallRecordLists``) past what they keep in memory go through temporary files
/// of the record folder, emptied and removed once the record is written: the text is the same either way.
@Suite struct InstallRecordListsTests {
    @Test func aRecordLargerThanItsMemoryIsTheSameText() throws {
        let dir = try TemporaryDirectory("record-lists")
        for index in 0..<1_500 { try dir.write("src/folder-\(index / 100)/a-file-with-a-longer-name-\(index).txt", []) }
        try mkdir(dir.file("src/empty"))
        let plan = try ExpansionPlanner.plan(DirectorySource(root: dir.file("src")))
        let staged = ResultSlots<StagedFile>(count: plan.items.count)
        for index in plan.items.indices where plan.items[index].kind == .file { staged[index] = StagedFile(crc32: UInt32(index)) }
        var texts: [[UInt8]] = []
        for limit in [InstallRecordLists.defaultMemoryLimit, 100] {
            let path = dir.file("tree-\(limit)")
            try mkdir(path)
            let tree = Descriptor(open(path, O_RDONLY | O_DIRECTORY), path: path)
            let lists = try InstallRecordLists(tree: tree, memoryLimit: limit)
            try lists.add(plan, staged: staged)
            let spooled = folderNames(path + "/.assetpack").filter { $0.hasPrefix(".assetpack-tmp-") }
            #expect(spooled.isEmpty == (limit != 100), "only the small limit spools to files: \(spooled)")
            let held = spooled.map { open(path + "/.assetpack/" + $0, O_RDONLY) }
            defer { for descriptor in held { close(descriptor) } }
            try lists.write(into: tree, source: nil, stamp: plan.stamp)
            texts.append(try recordBytes(ofTree: path))
            #expect(folderNames(path + "/.assetpack") == ["installed.json.gz"])
            for descriptor in held {
                var info = stat()
                #expect(fstat(descriptor, &info) == 0)
                #expect(info.st_size == 0 && info.st_nlink == 0, "emptied, so a flush does not write what is let go")
            }
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0].count > 64 << 10)
        let read = try #require(InstallRecordReader.read(bytes: texts[1]))
        #expect(read.files.count == 1_500 && read.directories?.count == 16)
    }

    /// Windows that come out of path order (an archive's come in its writer's order), each itself in any order,
    /// are recorded in path order: the text of the whole plan, through memory or through temporary files.
    @Test func windowsOutOfOrderAreRecordedInPathOrder() throws {
        let dir = try TemporaryDirectory("record-order")
        for index in 0..<300 { try dir.write("src/f\(index % 7)/a-b/\(index).txt", [UInt8(index % 256)]) }
        for index in 0..<30 { try dir.write("src/f\(index % 7)-\(index).txt", []) }
        let source = DirectorySource(root: dir.file("src"))
        let plan = try ExpansionPlanner.plan(source)
        func staged(_ items: [ExpansionItem]) -> ResultSlots<StagedFile> {
            let slots = ResultSlots<StagedFile>(count: items.count)
            for index in items.indices where items[index].kind == .file {
                slots[index] = StagedFile(crc32: items[index].path.string.utf8.reduce(0) { $0 &* 31 &+ UInt32($1) })
            }
            return slots
        }
        var texts: [[UInt8]] = []
        for (limit, windows) in [(InstallRecordLists.defaultMemoryLimit, 1), (InstallRecordLists.defaultMemoryLimit, 4), (100, 4), (100, 13)] {
            let path = dir.file("tree-\(limit)-\(windows)")
            try mkdir(path)
            let tree = Descriptor(open(path, O_RDONLY | O_DIRECTORY), path: path)
            let lists = try InstallRecordLists(tree: tree, memoryLimit: limit)
            let size = (plan.items.count + windows - 1) / windows
            let chunks = stride(from: 0, to: plan.items.count, by: size).map { Array(plan.items[$0..<min($0 + size, plan.items.count)]) }
            for chunk in windows == 1 ? chunks : chunks.reversed().map({ Array($0.reversed()) }) {
                let window = ExpansionPlan(sourceName: plan.sourceName, items: chunk, identity: plan.identity, usesManifest: false,
                                           stamp: plan.stamp, reading: ResolvedSource(source))
                try lists.add(window, staged: staged(chunk))
            }
            try lists.write(into: tree, source: nil, stamp: plan.stamp)
            texts.append(try recordBytes(ofTree: path))
            #expect(folderNames(path + "/.assetpack") == ["installed.json.gz"])
        }
        #expect(texts.allSatisfy { $0 == texts[0] })
        let read = try #require(InstallRecordReader.read(bytes: texts[0]))
        #expect(read.files.count == 330 && read.files.map(\.path) == plan.items.filter { $0.kind == .file }.map(\.path.string))
    }
}
