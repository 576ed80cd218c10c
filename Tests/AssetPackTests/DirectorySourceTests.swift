import AssetPackZip
import Foundation
import TestSupport
import Testing
@testable import AssetPack

@Suite struct DirectorySourceTests {
    @Test func aMissingRootIsAnEmptyTree() throws {
        let source = DirectorySource(root: "/nonexistent/assetpack/\(UUID().uuidString)")
        #expect(try source.list(.root) == [])
        #expect(try AssetWalker(source).walk() == [])
        let error = #expect(throws: AssetPackError.self) { try source.open(AssetPath("a")) }
        #expect(error?.code == .notFound)
    }

    /// A link is listed but never followed, even when it points inside the tree.
    @Test func refusesALinkToAFileInsideTheTree() throws {
        let scratch = try TemporaryDirectory("links")
        try scratch.write("real.txt", text: "real")
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link.txt"), withDestinationPath: "real.txt")
        let source = DirectorySource(root: scratch.path)
        #expect(try Set(source.list(.root)) == ["real.txt", "link.txt"])
        let link = try AssetPath("link.txt")
        for error in [#expect(throws: AssetPackError.self) { try source.open(link) },
                      #expect(throws: AssetPackError.self) { try source.size(of: link) },
                      #expect(throws: AssetPackError.self) { try source.randomAccess(link) },
                      #expect(throws: AssetPackError.self) { try AssetWalker(source).walk() }] {
            #expect(error?.code == .symlink)
            #expect(error?.path == scratch.file("link.txt"))
        }
        #expect(source.filePath(link) == nil)
    }

    @Test func refusesPathsThroughALinkToAFolderOutside() throws {
        let scratch = try TemporaryDirectory("links-out")
        let outside = try TemporaryDirectory("outside")
        try outside.write("secret.txt", text: "secret")
        try FileManager.default.createDirectory(atPath: scratch.file("tree"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("tree/escape"), withDestinationPath: outside.path)
        let source = DirectorySource(root: scratch.file("tree"))
        #expect(try source.list(.root) == ["escape"])
        for path in ["escape", "escape/secret.txt"] {
            let listed = #expect(throws: AssetPackError.self) { try source.list(AssetPath(path)) }
            let opened = #expect(throws: AssetPackError.self) { try source.open(AssetPath(path)) }
            #expect(listed?.code == .symlink, "list(\(path))")
            #expect(opened?.code == .symlink, "open(\(path))")
        }
        #expect(source.filePath(try AssetPath("escape/secret.txt")) == nil)
    }

    /// The root itself may be a link: it is the caller's choice.
    @Test func followsALinkAsTheRoot() throws {
        let scratch = try TemporaryDirectory("root-link")
        try scratch.write("real/a.txt", text: "a")
        try FileManager.default.createSymbolicLink(atPath: scratch.file("alias"), withDestinationPath: scratch.file("real"))
        let source = DirectorySource(root: scratch.file("alias"))
        #expect(try source.open(AssetPath("a.txt")).readAll() == Array("a".utf8))
    }

    @Test func refusesAFIFOWithoutBlocking() throws {
        let scratch = try TemporaryDirectory("fifo")
        #expect(mkfifo(scratch.file("pipe"), 0o644) == 0)
        let source = DirectorySource(root: scratch.path)
        let error = #expect(throws: AssetPackError.self) { try source.open(AssetPath("pipe")) }
        #expect(error?.code == .unsupported)
        #expect(try source.size(of: AssetPath("pipe")) == nil)
        #expect(source.filePath(try AssetPath("pipe")) == nil)
    }

    /// Names are returned as the file system stores them: decomposed stays decomposed.
    @Test func returnsNamesAsStored() throws {
        let scratch = try TemporaryDirectory("names")
        let decomposed = "e\u{301}t\u{301}e\u{301}.txt"
        try scratch.write(decomposed, text: "summer")
        let names = try DirectorySource(root: scratch.path).list(.root)
        #expect(names.map { Array($0.utf8) } == [Array(decomposed.utf8)])
    }

    /// Both spellings of "café" can sit in one folder (Linux file systems compare bytes): both are listed,
    /// and each opens its own file.
    @Test func keepsNamesThatDifferOnlyInNormalization() throws {
        let scratch = try TemporaryDirectory("twins")
        let composed = "caf\u{E9}.txt", decomposed = "cafe\u{301}.txt"
        try scratch.write(composed, text: "composed")
        try scratch.write(decomposed, text: "decomposed")
        let source = DirectorySource(root: scratch.path)
        let names = try source.list(.root).map { Array($0.utf8) }
        try #require(names.count == 2, "this file system folds normalization")
        #expect(Set(names) == [Array(composed.utf8), Array(decomposed.utf8)])
        #expect(try source.open(AssetPath(decomposed)).readAll() == Array("decomposed".utf8))
        #expect(try AssetWalker(source).walk().count == 2)
    }

    @Test func refusesANameThatIsNotUTF8() throws {
        let scratch = try TemporaryDirectory("bad-names")
        // "ba\xFFd": not UTF-8.
        let path = (Array(scratch.path.utf8) + [0x2F, 0x62, 0x61, 0xFF, 0x64]).map { CChar(bitPattern: $0) } + [0]
        let made = creat(path, 0o644)
        try #require(made >= 0, "this file system refuses non-UTF-8 names")
        close(made)
        let error = #expect(throws: AssetPackError.self) { try DirectorySource(root: scratch.path).list(.root) }
        #expect(error?.code == .unsafePath)
        #expect(error?.path == scratch.path)
    }

    @Test func randomAccessIsAFileSourceOfThatFile() throws {
        let scratch = try TemporaryDirectory("random")
        var random = SeededRandom(seed: 7)
        let bytes = random.bytes(100_000)
        try scratch.write("d/blob", bytes)
        let source = try #require(try DirectorySource(root: scratch.path).randomAccess(AssetPath("d/blob")))
        #expect(source is FileSource)
        #expect(try readAll(source) == bytes)
    }
}
