import AssetPack
@testable import AssetPackAndroid
import AssetPackZip
import Testing
import TestSupport

/// The trees ``NDKAssetSource`` lists from, since the NDK lists no folders. These need no Android
/// package: they run everywhere.
struct StoredTreeTests {
    @Test("A manifest's tree is the bundle's storage: plain files, each archive once, folders, no bookkeeping")
    func manifestTree() throws {
        let packed = { (archive: String, entry: String) in
            BundleManifest.Storage.packed(archive: archive, entry: entry, method: "deflate", compressedSize: 5)
        }
        let manifest = BundleManifest(threshold: 1, generator: "tests", entries: [
            .directory("empty"),
            .directory(".assetpack"),
            .file("a.txt", size: 3, crc32: 0xA, storage: .plain("a.txt")),
            .file("big/x.bin", size: 10, crc32: 0xB, storage: packed("big/x.bin.zip", "x.bin")),
            .file("big/y.bin", size: 10, crc32: 0xC, storage: packed("big/all.zip", "y.bin")),
            .file("big/z.bin", size: 10, crc32: 0xD, storage: packed("big/all.zip", "z.bin")),
        ])
        let tree = try ManifestStoredTree(manifest, origin: "manifest.json")
        #expect(tree.names(in: .root) == ["a.txt", "big", "empty"])
        #expect(tree.names(in: try AssetPath("big")) == ["all.zip", "x.bin.zip"])
        #expect(tree.names(in: try AssetPath("empty")) == [])
        #expect(tree.node(try AssetPath("a.txt")) == .file(size: 3, crc32: 0xA))
        #expect(tree.node(try AssetPath("big/all.zip")) == .file(size: nil, crc32: nil))
        #expect(tree.node(try AssetPath("empty")) == .directory)
        #expect(tree.node(try AssetPath("big/x.bin")) == nil, "a logical path, not a stored one")
        #expect(tree.node(try AssetPath(".assetpack")) == nil)
        #expect(tree.node(.root) == .directory)
    }

    @Test("A manifest that stores a file where a folder is needed is refused")
    func manifestConflict() throws {
        let manifest = BundleManifest(threshold: 1, generator: "tests", entries: [
            .file("a", size: 1, crc32: 1, storage: .plain("a")),
            .file("b", size: 1, crc32: 1, storage: .plain("a/b")),
        ])
        let error = #expect(throws: AssetPackError.self) { try ManifestStoredTree(manifest, origin: "manifest.json") }
        #expect(error?.code == .manifest)
        #expect(error?.path == "manifest.json")
    }

    @Test("The central directory's tree: stated and implied folders, links refused, a root below assets/")
    func centralDirectoryTree() throws {
        let scratch = try TemporaryDirectory("cd-tree")
        let writer = try ZipWriter(path: scratch.file("app.apk"))
        try writer.addFile("AndroidManifest.xml", contents: [1])
        try writer.addFile("assets/x.txt", contents: Array("xyz".utf8))
        try writer.addDirectory("assets/dir")
        try writer.addSymlink("assets/link", target: "x.txt")
        try writer.addFile("assets/sub/y.txt", contents: Array("y".utf8), method: .stored)
        try writer.finish(sync: false)
        let archive = try ZipArchive(path: scratch.file("app.apk"))
        let tree = CentralDirectoryTree(archive: archive, prefix: "assets")
        #expect(tree.names(in: .root) == ["dir", "link", "sub", "x.txt"])
        #expect(tree.node(try AssetPath("x.txt")) == .file(size: 3, crc32: CRC32.checksum(Array("xyz".utf8))))
        #expect(tree.node(try AssetPath("dir")) == .directory)
        #expect(tree.node(try AssetPath("sub")) == .directory, "implied by a longer name")
        #expect(tree.node(.root) == .directory)
        #expect(tree.node(try AssetPath("missing")) == nil)
        guard case .refused(let code, _)? = tree.node(try AssetPath("link")) else {
            Issue.record("a link entry must be refused")
            return
        }
        #expect(code == .symlink)
        let below = CentralDirectoryTree(archive: archive, prefix: "assets/sub")
        #expect(below.names(in: .root) == ["y.txt"])
    }
}
