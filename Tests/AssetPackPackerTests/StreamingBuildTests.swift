import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// A build streams the tree: the walk hands items over in the manifest's path order, packs and the
/// manifest are written as they come, and what needed the whole list (twins, incremental reuse) still holds.
@Suite struct StreamingBuildTests {
    /// Names whose path order is not the order of a walk that enters each folder where its name sorts:
    /// `a-b` and `a.b` sort before `a/b` (`-` and `.` are below `/`), `a0` after it.
    static let paths = ["a/b", "a/b.txt", "a-b", "a.b/c", "a0", "ab", "Z", "\u{E9}/x", "e\u{301}x", "a/\u{E9}t\u{E9}"]

    static func tree(_ dir: TemporaryDirectory) throws -> String {
        for (index, path) in paths.enumerated() {
            try dir.write("src/" + path, text: String(repeating: "x", count: index))
        }
        try mkdir(dir.file("src/a/empty"))
        return dir.file("src")
    }

    @Test func theWalkHandsItemsOverInPathOrder() throws {
        let dir = try TemporaryDirectory("walk-order")
        let source = try Self.tree(dir)
        var walked: [String] = []
        try SourceScanner().scan(source) { (item, _) in walked.append(item.path.string) }
        #expect(walked == walked.sorted(by: Memory.bytesPrecede))
        #expect(Array(walked.prefix(7)) == ["Z", "a", "a-b", "a.b", "a.b/c", "a/b", "a/b.txt"])
        #expect(Set(walked) == Set(Self.paths + ["a", "a.b", "\u{E9}", "a/empty"]))
    }

    @Test(arguments: [0, 64 << 10])
    func bothFormsRecordTheTreeInPathOrderAndGiveItBack(packMemberLimit: UInt64) throws {
        let dir = try TemporaryDirectory("stream-forms")
        let source = try Self.tree(dir)
        try build(source, dir.file("out"), packMemberLimit: packMemberLimit)
        let manifest = try readManifest(dir.file("out"))
        #expect(manifest.entries.map(\.path) == manifest.entries.map(\.path).sorted(by: Memory.bytesPrecede))
        #expect(manifest.identity == ContentIdentity.of(manifest.entries))
        try TestUnpacker.unpack(bundle: dir.file("out"), to: dir.file("back"))
        #expect(try snapshot(dir.file("back")) == snapshot(source))
        // The archive form records the same tree, and so the same identity.
        let archived = try Packer().buildArchive(source: source, output: dir.file("out.zip"))
        #expect(archived.identity == manifest.identity)
    }

    @Test func aPackHoldsItsMembersInPathOrder() throws {
        let dir = try TemporaryDirectory("pack-order")
        let source = try Self.tree(dir)
        try build(source, dir.file("out"), packMemberLimit: 64 << 10)
        let archive = try ZipArchive(path: dir.file("out/" + PackGrouping.folder + "/1.zip"))
        let members = archive.entries.map(\.name)
        #expect(members.count == Self.paths.count)
        #expect(members == members.sorted(by: Memory.bytesPrecede))
    }

    /// Twins are found in the folder that holds them, however late the walk gets there: the build, half
    /// written by then, is refused and leaves nothing.
    @Test(arguments: [false, true])
    func twinsFoundLateInTheWalkAreRefusedAndLeaveNothing(archive: Bool) throws {
        let dir = try TemporaryDirectory("late-twins")
        for index in 0..<30 { try dir.write("src/early\(index)/f", text: "\(index)") }
        try dir.write("src/z/deep/Name.txt", text: "one")
        try dir.write("src/z/deep/name.TXT", text: "two")
        let output = dir.file(archive ? "out.zip" : "out")
        let error = expectError {
            let options = BuildOptions()
            if archive {
                _ = try Packer(options: options).buildArchive(source: dir.file("src"), output: output)
            } else {
                _ = try Packer(options: options).build(source: dir.file("src"), output: output)
            }
        }
        #expect(error?.code == .conflict && error?.message.contains("differ only in case") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["src"])
    }

    /// A rebuild over the previous bundle reuses its unchanged packs and equals a clean build, byte for byte.
    @Test func aRebuildReusingPacksIsByteIdenticalToACleanBuild() throws {
        let dir = try TemporaryDirectory("reuse-packs")
        var random = SeededRandom(seed: 95)
        for index in 0..<200 { try dir.write("src/d\(index % 7)/f\(index).txt", random.text(500 + index * 10)) }
        try dir.write("src/big.txt", random.text(1_500_000))
        var rules = PackingRules()
        rules.packSize = 20_000
        let packer = Packer(options: BuildOptions(rules: rules))
        let first = try packer.build(source: dir.file("src"), output: dir.file("out"))
        // A changed file, a removed one and a new one between two old names: the old list is merged by path.
        try dir.write("src/d3/f3.txt", random.text(700))
        try FileManager.default.removeItem(atPath: dir.file("src/d1/f1.txt"))
        try dir.write("src/d2/f2a.txt", random.text(600))
        let second = try packer.build(source: dir.file("src"), output: dir.file("out"))
        #expect(second.reused > 0 && second.reused < first.packed)
        _ = try packer.build(source: dir.file("src"), output: dir.file("clean"))
        #expect(try bundleBytes(dir.file("out")) == bundleBytes(dir.file("clean")))
    }

    /// The manifest written a piece at a time is the text `encodedJSON()` gives, and the identity worked
    /// out on the way is the manifest's.
    @Test func theStreamedManifestIsTheEncodedOne() throws {
        var random = SeededRandom(seed: 96)
        let entries = try (0..<2_000).map { (index) throws -> BundleManifest.Entry in
            let path = "d\(index % 13)/f\(index)"
            _ = try AssetPath(path)
            return .file(path, size: UInt64(index), crc32: UInt32(index), storage: .plain(path),
                         sha256: String(repeating: "ab", count: 32))
        } + [.directory("d\(random.next() % 13)")]
        let manifest = ManifestWriter.manifest(entries, rules: PackingRules())
        var pieces: [[UInt8]] = []
        var writer = BundleManifest.Writer { pieces.append($0) }
        for entry in manifest.entries { try writer.add(entry) }
        var header = manifest
        header.identity = try writer.identity()
        try writer.finish(header)
        #expect(pieces.count > 2)
        #expect(Array(pieces.joined()) == (try manifest.encodedJSON()))
        #expect(header.identity == manifest.identity)
    }
}
