import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

@Suite struct ExpansionPlannerTests {
    @Test func manifestPlanListsTheLogicalTreeWithoutWalking() throws {
        let scratch = try TemporaryDirectory("plan-manifest")
        let bundle = try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored],
                                                  at: scratch.file("bundle"), scratch: scratch)
        let source = CallCountingSource(DirectorySource(root: scratch.file("bundle")))
        let plan = try ExpansionPlanner.plan(source)
        #expect(plan.usesManifest)
        #expect(plan.identity == bundle.manifest.identity)
        #expect(source.lists == 0)
        #expect(Set(plan.items.filter { $0.kind == .file }.map(\.path.string)) == Set(AssetTree.standard.files.keys))
        #expect(Set(plan.items.filter { $0.kind == .directory }.map(\.path.string)) == AssetTree.standard.directories)
        #expect(plan.totalBytes == AssetTree.standard.files.values.reduce(0) { $0 + UInt64($1.count) })
        #expect(plan.items.map(\.path) == plan.items.map(\.path).sorted())
    }

    @Test func aTreeWithoutManifestUnzipsEveryZipIntoItsParentFolder() throws {
        let scratch = try TemporaryDirectory("plan-tree")
        try scratch.write("tree/readme.txt", text: "hi")
        try ExpansionFixtures.zip(at: scratch.file("tree/binary/photos.zip"), [
            ("photos/frog.jpg", Array(repeating: 1, count: 300), .deflate),
            ("photos/toad.jpg", Array(repeating: 2, count: 30), .stored),
        ])
        let unzipped = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(!unzipped.usesManifest)
        #expect(unzipped.items.filter { $0.kind == .file }.map(\.path.string)
                == ["binary/photos/frog.jpg", "binary/photos/toad.jpg", "readme.txt"])
        let kept = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")), options: ExpansionOptions(keepZips: true))
        #expect(kept.items.filter { $0.kind == .file }.map(\.path.string) == ["binary/photos.zip", "readme.txt"])
        #expect(kept.identity != unzipped.identity)
    }

    /// One rule decides what is a zip, for the expander and the packer: a name ending in `.zip` (any case)
    /// after something. A file named just `.zip` is a hidden file without an extension and stays a file.
    @Test func onlyANameWithSomethingBeforeDotZipIsAZip() throws {
        for (name, isZip) in [("a.zip", true), ("A.ZIP", true), ("..zip", true), ("photos.Zip", true), (".zip", false),
                              ("zip", false), ("a.zipx", false), ("a.zip.txt", false), (".ZIP", false)] {
            #expect(try AssetPath("d/" + name).isZipArchiveName == isZip, "\(name)")
        }
        let scratch = try TemporaryDirectory("plan-dotzip")
        try ExpansionFixtures.zip(at: scratch.file("tree/.zip"), [("inside.txt", Array("in".utf8), .stored)])
        try ExpansionFixtures.zip(at: scratch.file("tree/x.zip"), [("inside.txt", Array("in".utf8), .stored)])
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(plan.items.filter { $0.kind == .file }.map(\.path.string) == [".zip", "inside.txt"])
    }

    @Test func unzippingIsOneLevelOnly() throws {
        let scratch = try TemporaryDirectory("plan-onelevel")
        let inner = try ExpansionFixtures.zipBytes([("deep.txt", Array("deep".utf8), .deflate)], scratch: scratch)
        try ExpansionFixtures.zip(at: scratch.file("tree/outer.zip"), [("inner.zip", inner, .stored)])
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(plan.items.map(\.path.string) == ["inner.zip"])
    }

    @Test(arguments: [
        (["a.txt", "A.txt"], "case"),
        (["caf\u{E9}.txt", "cafe\u{301}.txt"], "normalization"),
    ])
    func namesEqualUpToCaseOrNormalizationConflict(names: [String], _ label: String) throws {
        let scratch = try TemporaryDirectory("plan-twins")
        // One archive each: the zip writer itself refuses canonically equal names.
        for (index, name) in names.enumerated() {
            try ExpansionFixtures.zip(at: scratch.file("tree/x\(index).zip"), [(name, Array(name.utf8), .deflate)])
        }
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree"))) }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("differ only in case or Unicode normalization") == true)
    }

    @Test func aFileAndAFolderWithOneNameConflict() throws {
        let scratch = try TemporaryDirectory("plan-filedir")
        try scratch.write("tree/photos", text: "a file named photos")
        try ExpansionFixtures.zip(at: scratch.file("tree/photos.zip"), [("photos/frog.jpg", [1, 2, 3], .stored)])
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree"))) }
        #expect(error?.code == .conflict)
        #expect(error?.path == scratch.file("tree"), "the folder given, on disk")
        #expect(error?.entry == "photos", "the name in it")
    }

    @Test func twoArchivesWritingOneNameConflict() throws {
        let scratch = try TemporaryDirectory("plan-dup")
        try ExpansionFixtures.zip(at: scratch.file("tree/one.zip"), [("same.txt", [1], .stored)])
        try ExpansionFixtures.zip(at: scratch.file("tree/two.zip"), [("same.txt", [2], .stored)])
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree"))) }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("appears twice") == true)
    }

    @Test(arguments: ["../evil", "/etc/evil", "a/../../evil", "a\\b", "nul\u{0}name"])
    func unsafeEntryNamesAreRefused(name: String) throws {
        let scratch = try TemporaryDirectory("plan-unsafe")
        try ExpansionFixtures.zip(at: scratch.file("tree/bad.zip"), [("fine.txt", [1], .stored), (name, [6, 6, 6], .stored)])
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree"))) }
        #expect(error?.code == .unsafePath)
        #expect(error?.path == scratch.file("tree"), "the folder given, on disk")
        #expect(error?.entry == "bad.zip", "the archive in it")
        #expect(error?.description.hasPrefix(scratch.file("tree") + ": bad.zip: entry ") == true, "\(String(describing: error))")
    }

    @Test func reservedNamesAreRefused() throws {
        let scratch = try TemporaryDirectory("plan-reserved")
        try ExpansionFixtures.zip(at: scratch.file("tree/x.zip"), [(".assetpack/identity", [1], .stored)])
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree"))) }
        #expect(error?.code == .conflict)
    }

    @Test func permissionsLoseSetuidSetgidStickyAndWorldWrite() throws {
        #expect(PermissionPolicy.file(0o4777) == 0o775)
        #expect(PermissionPolicy.file(0o2755) == 0o755)
        #expect(PermissionPolicy.file(0o000) == 0o600)
        #expect(PermissionPolicy.file(nil) == 0o644)
        #expect(PermissionPolicy.directory(0o1777) == 0o775)
        let scratch = try TemporaryDirectory("plan-modes")
        try ExpansionFixtures.zip(at: scratch.file("tree/x.zip"), [("tool", [1], .stored)], permissions: 0o6777)
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(plan.items.first?.permissions == 0o775)
    }

    @Test(arguments: [0o010644, 0o020644, 0o060644, 0o140644])  // FIFO, character and block device, socket
    func specialEntriesArePlannedAsRegularFiles(mode: Int) throws {
        try ExternalTool.python3.require()
        let scratch = try TemporaryDirectory("plan-special")
        try FileManager.default.createDirectory(atPath: scratch.file("tree"), withIntermediateDirectories: true)
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                info = zipfile.ZipInfo("node")
                info.create_system = 3
                info.external_attr = int(sys.argv[2]) << 16
                z.writestr(info, b"")
            """
        #expect(try run("python3", ["-c", script, scratch.file("tree/x.zip"), String(mode)]).status == 0)
        // As unzip and Python extract it: a regular file of its data, with the default mode (ArchiveEntryPolicy).
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(plan.items.map(\.path.string) == ["node"])
        #expect(plan.items.first?.kind == .file)
        #expect(plan.items.first?.permissions == 0o644)
    }

    @Test func symlinkEntriesAreRefusedUnlessAllowed() throws {
        let scratch = try TemporaryDirectory("plan-symlink")
        try makeParent(scratch.file("tree/links.zip"))
        let writer = try ZipWriter(path: scratch.file("tree/links.zip"))
        try writer.addFile("target.txt", contents: [1])
        try writer.addSymlink("link", target: "target.txt")
        try writer.finish(sync: false)
        let source = DirectorySource(root: scratch.file("tree"))
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(source) }
        #expect(error?.code == .symlink)
        let plan = try ExpansionPlanner.plan(source, options: ExpansionOptions(allowSymlinks: true))
        #expect(plan.items.first { $0.kind == .symlink }?.symlinkTarget == "target.txt")
    }

    @Test func aBrokenManifestIsAManifestError() throws {
        let scratch = try TemporaryDirectory("plan-badmanifest")
        try ExpansionFixtures.bundle(.standard, packed: [:], at: scratch.file("bundle"), scratch: scratch)
        try scratch.write("bundle/assetpack-meta/identity", text: "not the identity")
        let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(DirectorySource(root: scratch.file("bundle"))) }
        #expect(error?.code == .manifest)
    }
}
