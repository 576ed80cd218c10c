import AssetPack
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// `BuildOptions.immutableNames` (`build --immutable-names`): every archive and plain file is named by the SHA-256
/// of its bytes, so a rebuild with one file changed keeps every other object's name and bytes and adds a name for
/// the one that changed; the bundle holds nothing else than its bookkeeping folder, and still unpacks to its source,
/// empty folders included.
@Suite struct ImmutableNamesTests {
    @Test func aRebuildWithOneFileChangedKeepsTheOtherObjectsNamesAndBytes() throws {
        let dir = try TemporaryDirectory("immutable")
        var random = SeededRandom(seed: 33)
        for (path, bytes) in Self.source(&random) { try dir.write("src/" + path, bytes) }
        try FileManager.default.createDirectory(atPath: dir.file("src/empty/folder"), withIntermediateDirectories: true)
        try Self.build(dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")) == ["assetpack-meta"])
        #expect(try Set(FileManager.default.contentsOfDirectory(atPath: dir.file("out/assetpack-meta")))
                == ["identity", "manifest.json", "objects"])
        let first = try Self.objects(dir.file("out"))
        #expect(first.count == 2 + 1 + 2,
                "two archives of large files, one object for two equal plain files, two packs: \(first.keys)")
        try dir.write("src/small/33.txt", random.text(40_000))
        try Self.build(dir)
        let second = try Self.objects(dir.file("out"))
        let kept = first.filter { second[$0.key] == $0.value }
        #expect(kept.count == first.count - 1, "only the pack holding the changed file is another object")
        #expect(Set(second.keys).subtracting(first.keys).count == 1)
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(dir.file("src")))
    }

    /// Two files packed alone, two equal plain files, and 40 small ones gathered into two packs.
    static func source(_ random: inout SeededRandom) -> [String: [UInt8]] {
        let plain = random.text(200_000)
        var files = ["big/noise.bin": random.bytes(1_200_000), "big/story.txt": random.text(1_500_000),
                     "plain.txt": plain, "copy-of-plain.txt": plain]
        for index in 0..<40 { files["small/\(index).txt"] = random.text(40_000) }
        return files
    }

    /// Builds `src` into `out` with immutable names (files over 1 MiB packed alone, up to 64 KiB gathered).
    static func build(_ dir: TemporaryDirectory) throws {
        var options = BuildOptions(rules: PackingRules(threshold: 1 << 20))
        options.immutableNames = true
        _ = try Packer(options: options).build(source: dir.file("src"), output: dir.file("out"))
    }

    /// The objects the manifest of the bundle at `root` names, by name: each is stored under
    /// `assetpack-meta/objects/`, named by its SHA-256 (and `.zip` for an archive).
    static func objects(_ root: String) throws -> [String: [UInt8]] {
        var objects: [String: [UInt8]] = [:]
        for entry in try readManifest(root).entries {
            guard let name = entry.storage?.file else { continue }
            let bytes = try fileBytes(root + "/" + name)
            var hash = SHA256()
            hash.update(bytes)
            let suffix = entry.storage?.form == .packed ? ".zip" : ""
            let expected = "assetpack-meta/objects/" + hash.finalizeHex() + suffix
            #expect(name == expected, "\(entry.path) is stored under its content name")
            objects[name] = bytes
        }
        return objects
    }
}
