@testable import AssetPack
import AssetPackAndroid
import AssetPackPacker
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Real APKs built by aapt and zipalign, expanded by the first-launch installer through Android 10's
/// AssetManager (``NDKAssetSource``) and through the zip-based APK source (``ZipAssetSource`` with root
/// `assets`); both trees must equal the original folder byte for byte, empty folders included where the
/// APK keeps them.
@Suite(AndroidHost.needed, APKBuilder.aapt.needed, APKBuilder.zipalign.needed)
struct APKExpansionTests {
    init() throws {
        try AndroidHost.require()
        try ExternalTool.require(APKBuilder.aapt, APKBuilder.zipalign)
    }

    @Test("An aapt APK of plain assets (stored and deflated, over 1 MiB, nested) expands to the original",
          arguments: AssetBackend.allCases)
    func plainAssets(_ backend: AssetBackend) throws {
        let scratch = try TemporaryDirectory("apk-plain")
        try FolderTree.androidAssets.write(to: scratch.file("assets"))
        try APKBuilder.build(assets: scratch.file("assets"), to: scratch.file("app.apk"))
        // aapt writes no directory entries: the empty folders are not in the APK.
        let expected = FolderTree.androidAssets.withoutEmptyFolders
        try expectBothSources(apk: scratch.file("app.apk"), backend: backend, expected: expected, scratch: scratch)
    }

    @Test("An APK with directory entries keeps its empty folders through both sources", arguments: AssetBackend.allCases)
    func directoryEntries(_ backend: AssetBackend) throws {
        let scratch = try TemporaryDirectory("apk-dirs")
        try DirectoryEntryAPK.write(to: scratch.file("unaligned.apk"))
        try APKBuilder.align(scratch.file("unaligned.apk"), to: scratch.file("app.apk"))
        try expectBothSources(apk: scratch.file("app.apk"), backend: backend, expected: DirectoryEntryAPK.tree, scratch: scratch)
    }

    @Test("A packed bundle packaged by aapt with default options keeps its manifest: planned from it, block-parallel, up to date without a walk, empty folders back",
          arguments: AssetBackend.allCases)
    func bundleWithDefaultOptions(_ backend: AssetBackend) throws {
        let scratch = try TemporaryDirectory("apk-bundle")
        let original = try PackedAssets.build(in: scratch)
        // No -0 and no --ignore-assets: aapt's default ignore list keeps assetpack-meta.
        let stderr = try APKBuilder.build(assets: scratch.file("bundle"), to: scratch.file("app.apk"), options: .init(noCompress: []))
        #expect(!stderr.contains("skipping"), "aapt said: \(stderr)")
        let apk = try ZipArchive(path: scratch.file("app.apk"))
        for name in [BundleManifest.path, BundleManifest.identityPath] {
            #expect(apk.entry(named: "assets/" + name) != nil, "\(name) is in the APK")
        }
        let host = try HostAssetManager(apk: scratch.file("app.apk"), backend: backend)
        // With a manifest no APK path is needed: the tree comes from the manifest, read through the NDK.
        let source = try NDKAssetSource(manager: host.manager, apkPath: nil)
        #expect(source.listing == .manifest)
        // aapt's default deflates what shrinks: a pack archive of stored members is deflated by the container
        // and then read as a stream, while an archive of deflated data stays stored and is read in place.
        var containerStored: Set<Bool> = []
        for archive in try PackedAssets.archives(in: scratch) {
            let stored = try #require(apk.entry(named: "assets/" + archive)).method == .stored
            containerStored.insert(stored)
            #expect(try (source.randomAccess(try AssetPath(archive)) != nil) == stored,
                    "\(archive): read in place exactly when the container stores it")
        }
        #expect(containerStored == [true, false], "both kinds of archive are in the APK")
        // The logical view over it (packed files as themselves) walks to the original tree.
        #expect(try AssetWalker(try AssetSources.view(of: source)).walk() == walkedItems(original))
        try expectManifestInstall(source, original: original, scratch: scratch, as: "ndk")
        try expectManifestInstall(try ZipAssetSource(path: host.apk, root: "assets"), original: original, scratch: scratch, as: "zip")
    }

    @Test("The 2012 recipe: a big file pre-zipped beside plain files and folders, unzipped at first launch",
          arguments: AssetBackend.allCases)
    func recipe2012(_ backend: AssetBackend) throws {
        let scratch = try TemporaryDirectory("apk-2012")
        var random = SeededRandom(seed: 2012)
        let dictionary = random.text(3_000_000)
        let index = random.bytes(40_000)
        let plain = FolderTree(files: [
            "config.txt": Array("version=1\n".utf8),
            "images/logo.bin": random.bytes(30_000),
            "levels/1/map.txt": random.text(12_000),
        ])
        try plain.write(to: scratch.file("assets"))
        let writer = try ZipWriter(path: scratch.file("assets/dictionary.zip"))
        try writer.addFile("dictionary/words.txt", contents: dictionary)
        try writer.addFile("dictionary/index.bin", contents: index, method: .stored)
        try writer.finish(sync: false)
        try APKBuilder.build(assets: scratch.file("assets"), to: scratch.file("app.apk"))

        let host = try HostAssetManager(apk: scratch.file("app.apk"), backend: backend)
        let source = try NDKAssetSource(manager: host.manager, apkPath: host.apk)
        #expect(try source.randomAccess(try AssetPath("dictionary.zip")) != nil, "aapt stores .zip: read with its central directory")
        var expected = plain
        expected.files["dictionary/words.txt"] = dictionary
        expected.files["dictionary/index.bin"] = index
        expected.folders.insert("dictionary")
        let (_, tree) = try install(source, into: scratch, as: "ndk")
        #expect(tree == expected, "\(tree.differences(from: expected))")
    }

    /// Plans `source` (a packed bundle in an APK) and installs it twice into `scratch/name`: the plan comes
    /// from the manifest without a `list`, the block-indexed file is planned for block-parallel inflate from
    /// its archive read in place, the tree equals `original` (empty folders included), and the second call
    /// is up to date having read only the identity file (`identityReads`: the paths it tries, in order).
    private func expectManifestInstall(_ source: any AssetSource, original: FolderTree, scratch: TemporaryDirectory, as name: String,
                                       identityReads: [String] = [BundleManifest.identityPath],
                                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let counting = CallCountingSource(source)
        let plan = try ExpansionPlanner.plan(counting)
        #expect(plan.usesManifest && counting.lists == 0, "\(name): planned from the manifest, no walk", sourceLocation: sourceLocation)
        let big = try #require(plan.items.first { $0.path.string == "big/corpus.txt" }, sourceLocation: sourceLocation)
        #expect(big.blocks != nil, "\(name): big/corpus.txt is inflated block-parallel", sourceLocation: sourceLocation)
        if case .zipEntry(let handle, _) = big.origin, let random = source as? any RandomAccessAssetSource {
            #expect(try random.randomAccess(try AssetPath(handle.displayName)) != nil,
                    "\(name): its archive is read in place, not spooled", sourceLocation: sourceLocation)
        } else {
            Issue.record("\(name): big/corpus.txt is not read from a random-access archive", sourceLocation: sourceLocation)
        }
        let (result, tree) = try install(source, into: scratch, as: name)
        #expect(result.identity == plan.identity, sourceLocation: sourceLocation)
        #expect(tree == original, "\(name): \(tree.differences(from: original))", sourceLocation: sourceLocation)
        let again = CallCountingSource(source)
        let second = try AssetInstaller(source: again, destination: scratch.file(name),
                                        options: ExpansionOptions(durability: .none)).installSynchronously()
        #expect(second.upToDate && again.lists == 0 && again.opens == identityReads,
                "\(name): up to date from \(again.opens), \(again.lists) lists", sourceLocation: sourceLocation)
    }

    /// Installs `apk` through the NDK source (with `backend`) and through the zip source, and compares both
    /// with `expected`.
    private func expectBothSources(apk: String, backend: AssetBackend, expected: FolderTree, scratch: TemporaryDirectory,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws {
        let host = try HostAssetManager(apk: apk, backend: backend)
        let ndk = try NDKAssetSource(manager: host.manager, apkPath: apk)
        let (_, ndkTree) = try install(ndk, into: scratch, as: "ndk")
        #expect(ndkTree == expected, "NDK: \(ndkTree.differences(from: expected))", sourceLocation: sourceLocation)
        let (_, zipTree) = try install(try ZipAssetSource(path: apk, root: "assets"), into: scratch, as: "zip")
        #expect(zipTree == expected, "zip: \(zipTree.differences(from: expected))", sourceLocation: sourceLocation)
    }
}

/// The APK test assets with a file large enough to be packed in blocks, built into a packed bundle by
/// the package's packer (as `assetpack build` does) at `scratch/bundle`.
enum PackedAssets {
    /// Writes the tree, packs it, and returns the tree the bundle must expand to.
    static func build(in scratch: TemporaryDirectory) throws -> FolderTree {
        var tree = FolderTree.androidAssets
        var random = SeededRandom(seed: 7)
        tree.files["big/corpus.txt"] = random.text(9 << 20)  // over the 4 MiB block size: packed in blocks
        tree.folders.insert("big")
        try tree.write(to: scratch.file("source"))
        _ = try Packer(options: BuildOptions(rules: PackingRules())).build(source: scratch.file("source"), output: scratch.file("bundle"))
        return tree
    }

    /// The bundle's manifest.
    static func manifest(in scratch: TemporaryDirectory) throws -> BundleManifest {
        try #require(try BundleManifest.read(from: DirectorySource(root: scratch.file("bundle"))))
    }

    /// The bundle's packing archives (bundle paths); fails when the packer made none with blocks.
    static func archives(in scratch: TemporaryDirectory) throws -> [String] {
        let packed = try manifest(in: scratch).entries.compactMap(\.storage).filter { $0.form == .packed }
        #expect(packed.contains { $0.blocks != nil }, "a file packed in blocks")
        return Array(Set(packed.map(\.file))).sorted()
    }
}
