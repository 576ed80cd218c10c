import AssetPackZip
import Foundation
import TestSupport
import Testing
@testable import AssetPack

/// The conformance checker run against every ``AssetSource`` implementation over the same tree.
@Suite struct AssetSourceConformanceTests {
    let tree = AssetTree.standard
    /// Files an archive stores rather than deflates in these tests.
    let storedFiles: Set<String> = ["a.txt", "zero.bin", "big.bin", "データ/木.txt"]

    @Test func androidLikeSource() throws {
        try checkConformance(of: AndroidLikeSource(files: tree.files, directories: Array(tree.directories)), to: tree)
    }

    @Test(arguments: ["", "/"]) func directorySource(rootSuffix: String) throws {
        let scratch = try TemporaryDirectory("dir-source")
        try tree.write(to: scratch.path)
        let source = DirectorySource(root: scratch.path + rootSuffix)
        try checkConformance(of: source, to: tree, randomAccessFiles: Set(tree.files.keys))
    }

    @Test func bundleSource() throws {
        let scratch = try TemporaryDirectory("bundle-source")
        try tree.write(to: scratch.file("Assets"))
        let bundle = try #require(Bundle(path: scratch.path))
        let source = try BundleSource(bundle: bundle, subdirectory: "Assets")
        try checkConformance(of: source, to: tree, randomAccessFiles: Set(tree.files.keys))
    }

    @Test(arguments: ["", "assets/", "assets/deeper/"]) func zipSourceWithDirectoryEntries(prefix: String) throws {
        let scratch = try TemporaryDirectory("zip-source")
        let path = scratch.file("tree.zip")
        try tree.writeZip(to: path, prefix: prefix, extra: ["outside.txt": [1, 2, 3]]) { storedFiles.contains($0) ? .stored : .deflate }
        let source = ZipAssetSource(archive: try ZipArchive(path: path), root: prefix)
        var expected = tree
        if prefix.isEmpty { expected.files["outside.txt"] = [1, 2, 3] }
        try checkConformance(of: source, to: expected, randomAccessFiles: storedFiles)
    }

    /// An APK: the tree under `assets/` with no directory entries, beside files outside it and a folder
    /// whose name merely starts with "assets".
    @Test func zipSourceLikeAnAPK() throws {
        let scratch = try TemporaryDirectory("apk-source")
        let path = scratch.file("app.apk")
        let outside: [String: [UInt8]] = ["AndroidManifest.xml": [0], "classes.dex": [1], "assetsX/b.txt": [2], "res/raw/c": [3]]
        try tree.writeZip(to: path, prefix: "assets/", directoryEntries: false, extra: outside) {
            storedFiles.contains($0) ? .stored : .deflate
        }
        let source = ZipAssetSource(archive: try ZipArchive(path: path), root: "assets")
        try checkConformance(of: source, to: tree.withoutEmptyDirectories, randomAccessFiles: storedFiles)
    }

    @Test func packedBundleOverAFolder() throws {
        let scratch = try TemporaryDirectory("packed-folder")
        let bundle = try PackedBundle(tree, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored], scratch: scratch)
        try bundle.stored.write(to: scratch.file("bundle"))
        let source = try PackedBundleSource(base: DirectorySource(root: scratch.file("bundle")))
        // Plain files are whole files; of the packed ones only the stored entry is a byte range.
        let random = Set(tree.files.keys).subtracting(["big.bin"])
        try checkConformance(of: source, to: tree, randomAccessFiles: random)
    }

    /// The bundle shipped inside an APK's `assets/`. Packing archives stored in the APK are read in place
    /// (random access); deflated ones are read forward-only through the APK entry's stream.
    @Test(arguments: [CompressionMethod.stored, .deflate]) func packedBundleInsideAnAPK(archiveMethod: CompressionMethod) throws {
        let scratch = try TemporaryDirectory("packed-apk")
        let bundle = try PackedBundle(tree, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored], scratch: scratch)
        let path = scratch.file("app.apk")
        try bundle.stored.writeZip(to: path, prefix: "assets/", directoryEntries: false) { $0.hasSuffix(".zip") ? archiveMethod : .deflate }
        let base = ZipAssetSource(archive: try ZipArchive(path: path), root: "assets")
        let source = try PackedBundleSource(base: base)
        try checkConformance(of: source, to: tree, randomAccessFiles: archiveMethod == .stored ? ["nested/deeper/x.bin"] : [])
    }

    /// The Android case: a source with only `list` and `open`, so packed files are read forward-only.
    @Test func packedBundleOverAnAndroidLikeSource() throws {
        let scratch = try TemporaryDirectory("packed-android")
        let bundle = try PackedBundle(tree, packed: ["big.bin": .deflate, "nested/deeper/x.bin": .stored], scratch: scratch)
        let source = try PackedBundleSource(base: AndroidLikeSource(files: bundle.files))
        try checkConformance(of: source, to: tree)
    }

    /// The checker itself: a source that differs from the tree in one way must be caught.
    @Test(arguments: ["extra file", "missing directory", "wrong contents"])
    func theCheckerNoticesADifference(_ difference: String) throws {
        var files = tree.files
        var directories = Array(tree.directories)
        switch difference {
        case "extra file": files["surprise.txt"] = [1]
        case "missing directory": directories.removeAll { $0 == "empty" }
        default: files["a.txt"] = Array("changed".utf8)
        }
        withKnownIssue {
            try checkConformance(of: AndroidLikeSource(files: files, directories: directories), to: tree)
        }
    }
}
