import AssetPackZip
import Testing
import TestSupport
@testable import AssetPack

@Suite struct AssetWalkerTests {
    @Test func findsFilesDirectoriesAndEmptyDirectories() throws {
        let tree = AssetTree.standard
        let source = AndroidLikeSource(files: tree.files, directories: Array(tree.directories))
        let items = try AssetWalker(source).walk()
        #expect(items == tree.items)
        #expect(items.first { $0.path.string == "data.bin" }?.kind == .directory)
        #expect(items.first { $0.path.string == "README" }?.kind == .file)
        #expect(items.first { $0.path.string == "zero.bin" }?.kind == .file)
        #expect(items.first { $0.path.string == "empty" }?.kind == .directory)
        #expect(items.first { $0.path.string == "nested/empty too" }?.kind == .directory)
        #expect(items.first { $0.path.string == "データ/木.txt" }?.kind == .file)
    }

    @Test func neverReadsFileData() throws {
        let tree = AssetTree.standard
        let source = AndroidLikeSource(files: tree.files, directories: Array(tree.directories))
        _ = try AssetWalker(source).walk()
        #expect(source.tally.bytesRead == 0)
        #expect(source.tally.opens == tree.files.count)
    }

    @Test func ordersByPathWhateverTheListingOrder() throws {
        let source = AndroidLikeSource(
            listings: ["": ["b", "a", "B", "a.txt", "é"], "a": ["z", "y"]],
            files: ["b": [], "B": [], "a.txt": [], "é": [], "a/z": [], "a/y": []])
        let paths = try AssetWalker(source).walk().map(\.description)
        #expect(paths == ["B", "a/", "a/y", "a/z", "a.txt", "b", "é"])
    }

    @Test func visitsInTheSameOrderAsTheArray() throws {
        let tree = AssetTree.standard
        let source = AndroidLikeSource(files: tree.files, directories: Array(tree.directories))
        var visited: [WalkedItem] = []
        try AssetWalker(source).walk { (item) throws(AssetPackError) in visited.append(item) }
        #expect(visited == tree.items)
    }

    @Test func aVisitorErrorStopsTheWalk() throws {
        let source = AndroidLikeSource(files: ["a": [], "b": [], "c": []])
        var visited = 0
        let error = #expect(throws: AssetPackError.self) {
            try AssetWalker(source).walk { (item) throws(AssetPackError) in
                visited += 1
                if item.path.string == "b" { throw AssetPackError(.cancelled, "stop") }
            }
        }
        #expect(error?.code == .cancelled)
        #expect(visited == 2)
    }

    @Test(arguments: ["..", ".", "a/b", "nul\u{0}byte", "back\\slash", "", "tab\there", "C:evil"])
    func refusesUnsafeNames(_ name: String) throws {
        let source = AndroidLikeSource(listings: ["": ["fine.txt", "dir"], "dir": [name]],
                                       files: ["fine.txt": [], "dir/\(name)": []])
        let error = #expect(throws: AssetPackError.self) { try AssetWalker(source).walk() }
        #expect(error?.code == .unsafePath)
        #expect(error?.message.contains("\"dir\"") == true, "names the folder: \(String(describing: error))")
        #expect(error?.path == source.name)
    }

    @Test func skipsTheBookkeepingFoldersOnlyAtTheRoot() throws {
        let source = AndroidLikeSource(files: ["assetpack-meta/manifest.json": [1], ".assetpack/manifest.json": [1],
                                               "sub/assetpack-meta/y": [2], "sub/.assetpack/x": [2], "a": [3]])
        let paths = try AssetWalker(source).walk().map(\.description)
        #expect(paths == ["a", "sub/", "sub/.assetpack/", "sub/.assetpack/x", "sub/assetpack-meta/", "sub/assetpack-meta/y"])
    }

    @Test func otherOpenErrorsPropagate() throws {
        let failure = AssetPackError(.io, "read failed", path: "locked.bin", errno: 5)
        let source = AndroidLikeSource(listings: ["": ["locked.bin", "ok"]], files: ["ok": []], failures: ["locked.bin": failure])
        let error = #expect(throws: AssetPackError.self) { try AssetWalker(source).walk() }
        #expect(error?.code == .io)
        #expect(error?.path == "locked.bin")
    }

    @Test func listsARepeatedNameOnce() throws {
        let source = AndroidLikeSource(listings: ["": ["a", "a", "b"]], files: ["a": [], "b": []])
        #expect(try AssetWalker(source).walk().map(\.description) == ["a", "b"])
    }

    /// Composed and decomposed "café" are two names on disk: both are reported, in byte order.
    @Test func keepsNamesThatDifferOnlyInNormalization() throws {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let source = AndroidLikeSource(listings: ["": [composed, decomposed, composed]], files: [:])
        let found = try AssetWalker(source).walk().map { Array($0.path.string.utf8) }
        #expect(found == [Array(decomposed.utf8), Array(composed.utf8)])
    }

    @Test func anEmptySourceHasNoItems() throws {
        #expect(try AssetWalker(AndroidLikeSource(files: [:])).walk() == [])
    }

    @Test func nestingIsBounded() throws {
        let error = #expect(throws: AssetPackError.self) { try AssetWalker(EndlessSource()).walk() }
        #expect(error?.code == .unsafePath)
        #expect(error?.message.contains("deeper than \(AssetPath.maxDepth)") == true)
    }
}

/// A hostile source in which every folder holds one more folder.
private struct EndlessSource: AssetSource {
    var name: String { "endless" }
    func list(_ path: AssetPath) throws(AssetPackError) -> [String] { ["d"] }
    func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream { throw AssetPackError(.notFound, "folder") }
}
