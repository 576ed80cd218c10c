@testable import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// An archive given as the source is planned from its central directory, not walked; the plan must be
/// exactly the one the list/open walk finds (same items, same identity, so the same stamp).
@Suite struct ZipSourcePlannerTests {
    /// An APK-like archive: files at several depths, explicit and implied folders, an empty folder, a
    /// nested zip (at the top and deeper), modes of every kind (a folder entry after its files too), an
    /// entry made on Windows (no mode), entries outside the root.
    private func archive(_ scratch: TemporaryDirectory, prefix: String) throws -> String {
        let path = scratch.file("app-\(prefix.isEmpty ? "plain" : "rooted").zip")
        let inner = try ExpansionFixtures.zipBytes([
            ("photos/frog.jpg", Array(repeating: 7, count: 3_000), .deflate),
            ("photos/", [], .stored),
            ("notes.txt", Array("inner".utf8), .stored),
        ], scratch: scratch)
        let writer = try ZipWriter(path: path)
        try writer.addFile("META-INF/MANIFEST.MF", contents: Array("outside".utf8))
        try writer.addDirectory(prefix + "empty/", permissions: 0o700)
        try writer.addDirectory(prefix + "levels/")
        try writer.addFile(prefix + "levels/1.json", contents: Array(#"{"level":1}"#.utf8), permissions: 0o600)
        try writer.addFile(prefix + "levels/deep/2.json", contents: Array(repeating: 0x41, count: 10_000), method: .stored)
        try writer.addDirectory(prefix + "levels/deep/", permissions: 0o2770)
        try writer.addFile(prefix + "zeta.txt", contents: [], permissions: 0o4755)
        try writer.addFile(prefix + "Alpha.bin", contents: (0..<4_096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try writer.addFile(prefix + "binary/pack.zip", contents: inner, method: .stored)
        try writer.addFile(prefix + "top.zip", contents: inner, method: .deflate)
        try writer.finish(sync: false)
        var bytes = try fileBytes(path)
        Self.markMadeOnWindows(prefix + "Alpha.bin", in: &bytes)
        try writeBytes(bytes, to: path)
        return path
    }

    /// Sets the host of the central header of entry `name` in `bytes` to MS-DOS (0): it then states no mode.
    private static func markMadeOnWindows(_ name: String, in bytes: inout [UInt8]) {
        let signature: [UInt8] = [0x50, 0x4b, 0x01, 0x02], wanted = Array(name.utf8)
        for start in 0..<(bytes.count - 46) where Array(bytes[start..<start + 4]) == signature {
            let length = Int(bytes[start + 28]) | Int(bytes[start + 29]) << 8
            if start + 46 + length <= bytes.count, Array(bytes[(start + 46)..<(start + 46 + length)]) == wanted { bytes[start + 5] = 0 }
        }
    }

    @Test(arguments: [("", false), ("", true), ("assets/", false), ("assets/", true)])
    func theCentralDirectoryPlanIsTheWalkedPlan(prefix: String, keepZips: Bool) throws {
        let scratch = try TemporaryDirectory("zip-source-plan")
        let zip = ZipAssetSource(archive: try ZipArchive(path: try archive(scratch, prefix: prefix)), root: prefix)
        let options = ExpansionOptions(keepZips: keepZips)
        var walking = options
        walking.testSeam.walksArchives = true
        let read = try TreePlanner(source: ResolvedSource(zip), options: options).plan()
        let walked = try TreePlanner(source: ResolvedSource(zip), options: walking).plan()
        func facts(_ plan: ExpansionPlan) -> [String] {
            plan.items.map { "\($0.kind) \($0.path.string) \($0.size) \($0.crc32.map { String($0) } ?? "-") \(String($0.permissions, radix: 8))" }
        }
        #expect(facts(read) == facts(walked))
        #expect(read.identity == walked.identity)
        #expect(read.stamp == walked.stamp)
        #expect(read.items.contains { $0.path.string == "empty" && $0.kind == .directory })
        let modes = Dictionary(read.items.map { ($0.path.string, $0.permissions) }) { first, _ in first }
        let stated: [String: UInt32] = ["empty": 0o700, "levels": 0o755, "levels/1.json": 0o600, "levels/deep": 0o770,
                                        "zeta.txt": 0o755, "Alpha.bin": 0o644]
        for (path, bits) in stated { #expect(modes[path] == bits, "\(path): \(String(modes[path] ?? 0, radix: 8))") }
        #expect(read.items.contains { $0.path.string == "META-INF/MANIFEST.MF" } == prefix.isEmpty)  // outside the root
        #expect(read.items.contains { $0.path.string == (keepZips ? "binary/pack.zip" : "binary/photos/frog.jpg") })
    }

    /// Without a manifest (or it would have been planned from it), a bookkeeping folder at the top of the
    /// archive is no bundle's: it is refused, through the central directory and through a walk alike.
    @Test(arguments: [".assetpack/user-data.bin", "assetpack-meta/identity"], ["", "assets/"])
    func aBookkeepingFolderWithoutAManifestIsRefused(name: String, prefix: String) throws {
        let scratch = try TemporaryDirectory("zip-source-bookkeeping")
        let path = scratch.file("x.zip")
        try ExpansionFixtures.zip(at: path, [(prefix + "a.txt", [1], .stored), (prefix + name, [2], .stored),
                                             (prefix + "sub/" + name, [3], .stored)])
        let zip = ZipAssetSource(archive: try ZipArchive(path: path), root: prefix)
        var walking = ExpansionOptions()
        walking.testSeam.walksArchives = true
        for options in [ExpansionOptions(), walking] {
            let error = #expect(throws: AssetPackError.self) { try ExpansionPlanner.plan(zip, options: options) }
            #expect(error?.code == .conflict, "\(String(describing: error))")
            #expect(error?.path == zip.archive.name, "names the archive on disk")
            #expect([name, String(name.prefix { $0 != "/" })].contains(error?.entry ?? ""), "and the entry or its folder")
            #expect(error?.message.contains("reserved") == true && error?.description.hasPrefix(zip.archive.name + ": ") == true)
        }
    }

    /// Tar-style names (`bsdtar -a -cf x.zip .` writes `./`, `./a/`, `./a/b.txt`) are read without their
    /// leading `./`, as `unzip`, Python and 7-Zip read them: through the central directory and through a
    /// walk alike, with or without a root.
    @Test(arguments: ["", "assets/"])
    func namesStartingWithTheCurrentFolderAreReadWithoutIt(prefix: String) throws {
        let scratch = try TemporaryDirectory("zip-source-dot")
        let path = scratch.file("dot.zip")
        try Data(RawZip([
            RawZip.directory("./"), RawZip.directory("./\(prefix)a/"), RawZip.file("./\(prefix)a/b.txt", Array("b".utf8)),
            RawZip.file("././\(prefix)c.txt", Array("c".utf8)), RawZip.directory("./\(prefix)a/empty/"),
        ]).bytes).write(to: URL(fileURLWithPath: path))
        let zip = ZipAssetSource(archive: try ZipArchive(path: path), root: prefix)
        var walking = ExpansionOptions()
        walking.testSeam.walksArchives = true
        let read = try TreePlanner(source: ResolvedSource(zip), options: ExpansionOptions()).plan()
        let walked = try TreePlanner(source: ResolvedSource(zip), options: walking).plan()
        #expect(read.items.map(\.path.string) == ["a", "a/b.txt", "a/empty", "c.txt"])
        #expect(walked.items.map(\.path.string) == read.items.map(\.path.string))
        #expect(read.identity == walked.identity)
        #expect(zip.archive.entry(named: "\(prefix)a/b.txt")?.name == "./\(prefix)a/b.txt")
        #expect(zip.archive.entry(named: "./\(prefix)a/b.txt")?.name == "./\(prefix)a/b.txt")
        let destination = scratch.file("out")
        _ = try AssetInstaller(source: zip, destination: destination).installSynchronously()
        #expect(try String(contentsOfFile: destination + "/a/b.txt", encoding: .utf8) == "b")
        #expect(try String(contentsOfFile: destination + "/c.txt", encoding: .utf8) == "c")
    }

    /// A `.` anywhere but at the start is still refused, a file entry that is the folder itself too, and a
    /// `./` name and the same name without it are one name twice.
    @Test func otherCurrentFolderNamesAreRefused() throws {
        let cases: [(RawZip.Entry, RawZip.Entry, String)] = [
            (RawZip.file("a/./b.txt", [1]), RawZip.file("c.txt", [2]), "'.' component"),
            (RawZip.file(".", [1]), RawZip.file("c.txt", [2]), "names the folder"),
            (RawZip.file("./c.txt", [1]), RawZip.file("c.txt", [2]), "appears twice"),
        ]
        for (first, second, reason) in cases {
            let scratch = try TemporaryDirectory("zip-source-dot-refused")
            try Data(RawZip([first, second]).bytes).write(to: URL(fileURLWithPath: scratch.file("x.zip")))
            let error = #expect(throws: AssetPackError.self) {
                try ExpansionPlanner.plan(try ZipAssetSource(path: scratch.file("x.zip")))
            }
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        }
    }

    @Test func aNestedZipConflictingWithAFileIsRefused() throws {
        let scratch = try TemporaryDirectory("zip-source-plan-conflict")
        let inner = try ExpansionFixtures.zipBytes([("readme.txt", Array("inner".utf8), .stored)], scratch: scratch)
        try ExpansionFixtures.zip(at: scratch.file("outer.zip"), [("readme.txt", Array("outer".utf8), .stored),
                                                                  ("bundle.zip", inner, .stored)])
        let zip = ZipAssetSource(archive: try ZipArchive(path: scratch.file("outer.zip")), root: "")
        let error = #expect(throws: AssetPackError.self) { try TreePlanner(source: ResolvedSource(zip), options: ExpansionOptions()).plan() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("readme.txt") == true)
    }
}

/// The byte keys the plan is sorted by must order paths exactly as `AssetPath.<` does.
@Suite struct AssetPathOrderKeyTests {
    @Test func keysSortLikeTheComparison() throws {
        var random = SeededRandom(seed: 0x5eed)
        let alphabet = ["a", "b", "a.b", "a-b", "ab", "A", "\u{E9}", "e\u{301}", "z", "0", "~", "\u{1F600}"]
        var paths: [AssetPath] = []
        for _ in 0..<2_000 {
            var path = AssetPath.root
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let parts = 1 + Int(random.next() % 2)
                let name = (0..<parts).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
                path = try path.appending(name)
            }
            paths.append(path)
        }
        let bytes = { (path: AssetPath) in Array(path.string.utf8) }  // what the install record compares
        let byComparison = paths.sorted().map(bytes)
        let byKeys = paths.map(bytes).sorted { AssetPath.precedes($0, $1) }
        #expect(byKeys == byComparison)
        for (left, right) in zip(paths, paths.dropFirst()) {
            #expect(AssetPath.precedes(bytes(left), bytes(right)) == (left < right))
        }
    }

    @Test func theBuilderPutsItemsAddedInAnyOrderInPathOrder() throws {
        var random = SeededRandom(seed: 42)
        var names = (0..<3_000).map { "d\($0 % 13)/f\($0)" }
        names.shuffle(using: &random)
        var builder = PlanBuilder(source: "assets")
        for name in names {
            try builder.add(ExpansionItem(path: try AssetPath(name), kind: .file, permissions: 0o644), from: "test")
        }
        let items = builder.takeWindow()
        #expect(items.count == names.count + 13)  // the 13 folders are items too
        #expect(items.map(\.path) == items.map(\.path).sorted())
        #expect(Set(items.filter { $0.kind == .file }.map(\.path.string)) == Set(names))
    }

    @Test func foldedKeysAreLowercasedNFCPaths() throws {
        for name in ["a", "Dir/Sub/File.TXT", "x/Y_z-0.9/@[`{", "Caf\u{E9}/N\u{303}o", "cafe\u{301}/A"] {
            let path = try AssetPath(name)
            let expected = path.components.map { $0.precomposedStringWithCanonicalMapping.lowercased() }.joined(separator: "/")
            #expect(Array(PlanBuilder.foldedKey(path).utf8) == Array(expected.utf8), "\(name)")
        }
        #expect(PlanBuilder.foldedKey(.root) == "")
    }

    @Test func aPlanCountsItsFilesAndBytesOnce() throws {
        let scratch = try TemporaryDirectory("plan-counts")
        try AssetTree.standard.write(to: scratch.file("tree"))
        let plan = try ExpansionPlanner.plan(DirectorySource(root: scratch.file("tree")))
        #expect(plan.fileCount == plan.items.count(where: { $0.kind != .directory }))
        #expect(plan.totalBytes == plan.items.reduce(0) { $0 + $1.size })
    }
}
