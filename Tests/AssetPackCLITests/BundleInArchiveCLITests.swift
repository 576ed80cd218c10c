import Foundation
import Testing
import TestSupport

/// An APK (any zip) that carries a bundle below its top, as an Android app ships `assets/app.bundle`:
/// `expand app.apk --to DIR` without `--root` expands that bundle (never unzips its pack archives in place),
/// and refuses an archive of several bundles naming each, for `--root` to pick one.
@Suite struct BundleInArchiveCLITests {
    let tool = builtProduct("assetpack")

    /// The source tree: enough small files to fill a pack archive, and one over the threshold.
    static let tree: ExpandCLITests.Files = {
        var random = SeededRandom(seed: 31)
        var files: ExpandCLITests.Files = ["big.bin": random.bytes(9_000)]
        for index in 0..<6 { files["small/f\(index).txt"] = Array("file \(index)\n".utf8) }
        return files
    }()

    /// Builds ``tree`` into a bundle and stores it in `scratch/app.apk` under each of `roots`.
    func apk(_ scratch: TemporaryDirectory, roots: [String]) throws {
        try ExpandCLITests.write(Self.tree, to: scratch.file("src"))
        let built = try run(tool, ["build", "src", "-o", "app.bundle", "--threshold", "4K", "-q"], cwd: scratch.path)
        #expect(built.status == 0, "\(built.stderr)")
        let bundle = try #require(ExpandCLITests.read(scratch.file("app.bundle")))
        #expect(bundle.keys.contains { $0.hasPrefix("assetpack-meta/packs/") }, "the bundle has pack archives")
        let entries = roots.flatMap { root in bundle.sorted { $0.key < $1.key }.map { RawZip.file(root + "/" + $0.key, $0.value) } }
        try RawZip([RawZip.file("classes.dex", [0xde, 0x78])] + entries).write(to: scratch.file("app.apk"))
    }

    @Test func theOneBundleOfAnAPKIsExpandedWithoutRoot() throws {
        let scratch = try TemporaryDirectory("cli-apk-bundle")
        try apk(scratch, roots: ["assets/app.bundle"])
        let expanded = try run(tool, ["expand", "app.apk", "--to", "out"], cwd: scratch.path)
        #expect(expanded.status == 0, "\(expanded.stderr)")
        #expect(expanded.stdout.hasPrefix("expanded 7 files (8.8 KiB) into \(scratch.file("out")) in "), "\(expanded.stdout)")
        #expect(ExpandCLITests.read(scratch.file("out")) == Self.tree)
        let again = try run(tool, ["expand", "app.apk", "--to", "out"], cwd: scratch.path)
        #expect(again.stdout == scratch.file("out") + " is up to date\n")
    }

    @Test func anAPKOfSeveralBundlesIsRefusedNamingEach() throws {
        let scratch = try TemporaryDirectory("cli-apk-bundles")
        try apk(scratch, roots: ["assets/b.bundle", "assets/a.bundle"])
        let refused = try run(tool, ["expand", "app.apk", "--to", "out"], cwd: scratch.path)
        #expect(refused.status == 64)
        #expect(refused.stderr == "assetpack: error: app.apk: holds 2 bundles (assets/a.bundle, assets/b.bundle); "
                + "give --root with the one to expand\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out")))
        let picked = try run(tool, ["expand", "app.apk", "--root", "assets/b.bundle", "--to", "out"], cwd: scratch.path)
        #expect(picked.status == 0, "\(picked.stderr)")
        #expect(ExpandCLITests.read(scratch.file("out")) == Self.tree)
    }
}
