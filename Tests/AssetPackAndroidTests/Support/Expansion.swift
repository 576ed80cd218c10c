import AssetPack
import AssetPackZip
import Foundation
import TestSupport

/// Expands `source` with the first-launch installer into the new folder `name` of `scratch`; returns
/// the result and what landed on disk.
func install(_ source: any AssetSource, into scratch: TemporaryDirectory, as name: String) throws -> (ExpansionResult, FolderTree) {
    let destination = scratch.file(name)
    let installer = try AssetInstaller(source: source, destination: destination, options: ExpansionOptions(durability: .none))
    let result = try installer.installSynchronously()
    return (result, try FolderTree.read(destination))
}

/// An APK as other tools than aapt write it (`zip -r`, many repackagers): every folder has its own
/// directory entry — `assets/` too — so empty folders survive, and the NDK's folder quirks show.
enum DirectoryEntryAPK {
    /// The assets inside it: deflated and stored files, nested folders, one empty folder, Unicode names.
    static let tree: FolderTree = {
        var random = SeededRandom(seed: 10)
        return FolderTree(files: [
            "deflated.txt": random.text(300_000),
            "dir/x.txt": Array("x\n".utf8),
            "dir/stored.bin": random.bytes(50_000),
            "dir/sub/s.txt": random.text(3_000),
            "データ/木.txt": Array("unicode".utf8),
        ], emptyFolders: ["empty"])
    }()

    /// Files written stored; the others are deflated.
    static let storedFiles: Set<String> = ["dir/stored.bin", "dir/sub/s.txt"]

    /// Writes the APK (4-byte aligned stored data, as zipalign leaves it) to `path`.
    static func write(to path: String) throws {
        let writer = try ZipWriter(path: path, options: .deterministic(storedAlignment: 4))
        try writer.addFile("AndroidManifest.xml", contents: Array("<manifest package=\"org.assetpack.tests\"/>".utf8))
        try writer.addDirectory("assets/")
        for folder in tree.folders.sorted() { try writer.addDirectory("assets/" + folder) }
        for (path, bytes) in tree.files.sorted(by: { $0.key < $1.key }) {
            try writer.addFile("assets/" + path, contents: bytes, method: storedFiles.contains(path) ? .stored : .deflate)
        }
        try writer.finish(sync: false)
    }
}
