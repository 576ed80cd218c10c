import AssetPackZip
import Foundation
import TestSupport
import Testing
@testable import AssetPack

@Suite struct ZipAssetSourceTests {
    let levels: [String: [UInt8]] = {
        var random = SeededRandom(seed: 3)
        return ["level1.dat": random.bytes(40_000), "sub/level2.dat": random.text(60_000)]
    }()

    /// An APK holding `assets/levels.zip` with `method`; returns the source and what the writer recorded.
    private func apk(innerMethod method: CompressionMethod, in scratch: TemporaryDirectory) throws -> (ZipAssetSource, WrittenEntry) {
        try AssetTree(files: levels).writeZip(to: scratch.file("levels.zip"))
        let inner = Array(try Data(contentsOf: scratch.url("levels.zip")))
        let writer = try ZipWriter(path: scratch.file("app.apk"), options: .deterministic())
        try writer.addFile("classes.dex", contents: [1, 2, 3])
        let written = try writer.addFile("assets/levels.zip", contents: inner, method: method)
        try writer.finish(sync: false)
        return (ZipAssetSource(archive: try ZipArchive(path: scratch.file("app.apk")), root: "assets/"), written)
    }

    @Test func aStoredInnerZipIsReadInPlace() throws {
        let scratch = try TemporaryDirectory("inner-stored")
        let (source, written) = try apk(innerMethod: .stored, in: scratch)
        let slice = try #require(try source.randomAccess(AssetPath("levels.zip")) as? SliceSource)
        #expect(slice.offset == written.dataOffset)
        #expect(slice.size == written.uncompressedSize)
        let inner = try ZipArchive(source: slice)
        for (name, bytes) in levels {
            #expect(try inner.contents(of: inner.requireEntry(named: name)) == bytes)
        }
    }

    @Test func aDeflatedInnerZipIsReadForwardOnly() throws {
        let scratch = try TemporaryDirectory("inner-deflated")
        let (source, _) = try apk(innerMethod: .deflate, in: scratch)
        let path = try AssetPath("levels.zip")
        #expect(try source.randomAccess(path) == nil)
        let reader = ZipStreamReader(try source.open(path), name: "levels.zip")
        var found: [String: [UInt8]] = [:]
        while let entry = try reader.nextEntry() {
            if entry.kind == .file { found[entry.name] = try reader.readAll() }
        }
        #expect(found == levels)
    }

    @Test func theRootMatchesWholeFolderNamesOnly() throws {
        let scratch = try TemporaryDirectory("prefix")
        try AssetTree(files: ["assets/a.txt": [1], "assetsX/b.txt": [2], "assets.txt": [3]])
            .writeZip(to: scratch.file("p.zip"), directoryEntries: false)
        let archive = try ZipArchive(path: scratch.file("p.zip"))
        #expect(try ZipAssetSource(archive: archive, root: "assets").list(.root) == ["a.txt"])
        #expect(try ZipAssetSource(archive: archive, root: "/assets/").list(.root) == ["a.txt"])
        #expect(try Set(ZipAssetSource(archive: archive).list(.root)) == ["assets", "assetsX", "assets.txt"])
        #expect(try ZipAssetSource(archive: archive, root: "missing").list(.root) == [])
    }

    @Test func refusesLinkEntries() throws {
        let scratch = try TemporaryDirectory("zip-link")
        let writer = try ZipWriter(path: scratch.file("l.zip"), options: .deterministic())
        try writer.addFile("a.txt", contents: [1])
        try writer.addSymlink("link", target: "/etc/passwd")
        try writer.finish(sync: false)
        let source = ZipAssetSource(archive: try ZipArchive(path: scratch.file("l.zip")))
        let opened = #expect(throws: AssetPackError.self) { try source.open(AssetPath("link")) }
        let walked = #expect(throws: AssetPackError.self) { try AssetWalker(source).walk() }
        #expect(opened?.code == .symlink)
        #expect(walked?.code == .symlink)
        #expect(try source.size(of: AssetPath("link")) == nil)
    }

    @Test(arguments: ["assets/../evil.txt", "assets/a\\b.txt", "assets/x/./y"])
    func unsafeEntryNamesFailTheWalk(_ name: String) throws {
        let scratch = try TemporaryDirectory("zip-unsafe")
        let writer = try ZipWriter(path: scratch.file("u.zip"), options: .deterministic())
        try writer.addFile("assets/ok.txt", contents: [1])
        try writer.addFile(name, contents: [2])
        try writer.finish(sync: false)
        let source = ZipAssetSource(archive: try ZipArchive(path: scratch.file("u.zip")), root: "assets")
        let error = #expect(throws: AssetPackError.self) { try AssetWalker(source).walk() }
        #expect(error?.code == .unsafePath)
    }

    @Test func aDamagedEntryFailsWhileReading() throws {
        let scratch = try TemporaryDirectory("zip-damaged")
        let writer = try ZipWriter(path: scratch.file("d.zip"), options: .deterministic())
        let written = try writer.addFile("a.txt", contents: Array("original".utf8), method: .stored)
        try writer.finish(sync: false)
        var bytes = Array(try Data(contentsOf: scratch.url("d.zip")))
        bytes[Int(written.dataOffset)] ^= 0xFF
        let source = ZipAssetSource(archive: try ZipArchive(source: MemorySource(bytes, name: "d.zip")))
        let stream = try source.open(AssetPath("a.txt"))
        let error = #expect(throws: ZipError.self) { try stream.readAll() }
        #expect(error?.code == .checksum)
        #expect(AssetPackError(try #require(error)).code == .archive)
    }
}
