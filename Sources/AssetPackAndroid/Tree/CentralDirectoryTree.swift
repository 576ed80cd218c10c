import AssetPack
import AssetPackZip

/// The asset tree as the APK's own central directory states it, read with ``ZipArchive`` from the APK
/// file (`ApplicationInfo.sourceDir`): folders stated by directory entries or implied by longer names
/// (aapt writes no directory entries, so an empty folder survives only in a zip that has one).
struct CentralDirectoryTree: StoredTree {
    /// The APK.
    let archive: ZipArchive
    /// The folder of the APK the tree starts at: `assets`, or `assets/ROOT`.
    let prefix: String

    var origin: String { "the central directory of \(archive.name)" }

    func node(_ path: AssetPath) -> StoredNode? {
        let name = entryName(path)
        guard !path.isRoot, let entry = archive.entry(named: name) else {
            return archive.isDirectory(name) ? .directory : nil
        }
        switch entry.kind {
        // A FIFO, socket or device entry (Info-ZIP `zip -` from a pipe records the pipe's mode) is read as
        // the regular file its data makes, as everywhere else in the package.
        case .file, .special: return .file(size: entry.uncompressedSize, crc32: entry.crc32)
        case .directory: return .directory
        case .symlink: return .refused(.symlink, "is a symbolic link; links are not followed")
        }
    }

    func names(in path: AssetPath) -> [String] {
        (archive.contentsOfDirectory(entryName(path)) ?? []).filter { !$0.isEmpty }
    }

    /// The APK entry name of `path`.
    func entryName(_ path: AssetPath) -> String {
        path.isRoot ? prefix : prefix + "/" + path.string
    }
}
