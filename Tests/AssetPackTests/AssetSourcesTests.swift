import AssetPackZip
import Foundation
import TestSupport
import Testing
@testable import AssetPack

@Suite struct AssetSourcesTests {
    @Test func aFolderIsADirectorySource() throws {
        let scratch = try TemporaryDirectory("pick-folder")
        try scratch.write("assets/a.txt", text: "a")
        let whole = try AssetSources.open(path: scratch.path, root: nil)
        let inner = try #require(try AssetSources.open(path: scratch.path, root: "assets") as? DirectorySource)
        #expect(whole is DirectorySource)
        #expect(try inner.list(.root) == ["a.txt"])
    }

    @Test func anArchiveIsAZipSourceWhateverItsName() throws {
        let scratch = try TemporaryDirectory("pick-zip")
        try AssetTree(files: ["assets/a.txt": [1], "classes.dex": [2]]).writeZip(to: scratch.file("app.apk.bin"))
        let source = try #require(try AssetSources.open(path: scratch.file("app.apk.bin"), root: "assets") as? ZipAssetSource)
        #expect(source.root == "assets")
        #expect(try source.list(.root) == ["a.txt"])
    }

    @Test func aPackedBundleGetsTheLogicalView() throws {
        let scratch = try TemporaryDirectory("pick-packed")
        let tree = AssetTree(files: ["a.txt": [1], "big.bin": [UInt8](repeating: 2, count: 1_000)])
        let bundle = try PackedBundle(tree, packed: ["big.bin": .stored], scratch: scratch)
        try bundle.stored.writeZip(to: scratch.file("app.apk"), prefix: "assets/", directoryEntries: false)
        try bundle.stored.write(to: scratch.file("folder"))
        for (path, root) in [(scratch.file("app.apk"), "assets"), (scratch.file("folder"), nil)] {
            let view = try #require(try AssetSources.open(path: path, root: root) as? PackedBundleSource)
            #expect(try view.list(.root) == ["a.txt", "big.bin"])
            #expect(try AssetSources.container(path: path, root: root) is PackedBundleSource == false)
        }
    }

    @Test func reportsWhatIsWrongWithThePath() throws {
        let scratch = try TemporaryDirectory("pick-bad")
        try scratch.write("notes.txt", text: "not a zip")
        let cases: [(String, String?, AssetPackError.Code)] = [
            (scratch.file("missing"), nil, .notFound),
            (scratch.file("notes.txt"), nil, .archive),
            (scratch.path, "../etc", .unsafePath),
        ]
        for (path, root, code) in cases {
            let error = #expect(throws: AssetPackError.self) { try AssetSources.open(path: path, root: root) }
            #expect(error?.code == code, "\(path) \(root ?? "-"): \(String(describing: error))")
        }
    }
}
