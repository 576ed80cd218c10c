import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// Archive names: collisions and real zip assets.
@Suite struct NamingTests {
    @Test func collisionPicksAnotherArchiveName() throws {
        let dir = try TemporaryDirectory("collide")
        var random = SeededRandom(seed: 31)
        try dir.write("src/a.bin", random.text(1_200_000))
        try dir.write("src/a.bin.zip", Array("not really a zip, but a file with that name".utf8))
        try build(dir.file("src"), dir.file("out"))
        let manifest = try readManifest(dir.file("out"))
        #expect(manifest.entries.first { $0.path == "a.bin" }?.storage?.file == "a.bin.1.zip")
        #expect(manifest.entries.first { $0.path == "a.bin.zip" }?.storage == .plain("a.bin.zip"))
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(dir.file("src")))
    }

    @Test func collisionWithALaterLargeFileAndCaseTwin() throws {
        let items = try ["d/a.bin", "d/a.bin.1.zip", "d/A.BIN.ZIP", "d/b"].map { path in
            SourceItem(path: try AssetPath(path), sourcePath: "/nowhere/" + path, kind: .file, size: 2_000_000, isExecutable: false)
        }
        let names = FolderNames(items.map(\.path.name))
        let plan = try items.map { (item) throws(AssetPackError) in
            try BundlePlan.plan(item, names: names, rules: PackingRules())
        }
        let archives = plan.compactMap { entry -> String? in
            if case .pack(let archive, _) = entry.action { return archive.string } else { return nil }
        }
        // a.bin.zip clashes with A.BIN.ZIP (case), a.bin.1.zip is a source file: a.bin gets .2.zip.
        #expect(archives == ["d/a.bin.2.zip", "d/b.zip"])
        #expect(Set(archives).count == archives.count)
    }

    @Test func realZipAssetStaysPlainAndIdentical() throws {
        let dir = try TemporaryDirectory("realzip")
        var random = SeededRandom(seed: 32)
        let writer = try ZipWriter(path: dir.file("inner.zip"), options: .deterministic())
        try writer.addFile("inside.txt", contents: random.text(3_000_000))
        try writer.finish()
        try mkdir(dir.file("src/data"))
        try FileManager.default.copyItem(atPath: dir.file("inner.zip"), toPath: dir.file("src/data/inner.zip"))
        try build(dir.file("src"), dir.file("out"), threshold: 0)
        let manifest = try readManifest(dir.file("out"))
        #expect(manifest.entries.first { $0.path == "data/inner.zip" }?.storage == .plain("data/inner.zip"))
        #expect(try fileBytes(dir.file("out/data/inner.zip")) == fileBytes(dir.file("inner.zip")))
    }
}
