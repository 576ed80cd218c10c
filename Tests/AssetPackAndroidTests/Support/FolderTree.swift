import Foundation
import TestSupport

/// A folder's contents for byte-for-byte comparison: every file with its bytes, every folder (empty or
/// not). Read from disk (assetpack's `.assetpack` record at the top left out) or written to it.
struct FolderTree: Equatable, CustomStringConvertible {
    /// Path → bytes.
    var files: [String: [UInt8]]
    /// Every folder path, those holding files included.
    var folders: Set<String>

    /// `files` plus the folders above them and the extra `emptyFolders`.
    init(files: [String: [UInt8]], emptyFolders: [String] = []) {
        self.files = files
        self.folders = []
        for path in files.keys { addParents(of: path) }
        for folder in emptyFolders {
            addParents(of: folder)
            folders.insert(folder)
        }
    }

    /// What is in the folder at `root`.
    static func read(_ root: String) throws -> FolderTree {
        var tree = FolderTree(files: [:])
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let relative = enumerator?.nextObject() as? String {
            if relative == ".assetpack" { enumerator?.skipDescendants(); continue }
            let type = enumerator?.fileAttributes?[.type] as? FileAttributeType
            if type == .typeDirectory {
                tree.folders.insert(relative)
            } else {
                tree.files[relative] = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + relative)))
            }
        }
        return tree
    }

    /// Writes the files and folders under `root`.
    func write(to root: String) throws {
        for folder in folders {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        for (path, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + path)) }
    }

    /// The tree as an APK built by aapt keeps it: folders without files are gone (aapt writes no
    /// directory entries).
    var withoutEmptyFolders: FolderTree { FolderTree(files: files) }

    /// The differences from `other`, one line each, for a failing comparison.
    func differences(from other: FolderTree) -> [String] {
        var lines: [String] = []
        for path in Set(files.keys).union(other.files.keys).sorted() where files[path] != other.files[path] {
            lines.append("file \(path): \(files[path].map { "\($0.count) bytes" } ?? "missing") here, "
                         + "\(other.files[path].map { "\($0.count) bytes" } ?? "missing") there")
        }
        for folder in folders.symmetricDifference(other.folders).sorted() {
            lines.append("folder \(folder): \(folders.contains(folder) ? "only here" : "only there")")
        }
        return lines
    }

    var description: String { "\(files.count) files, folders \(folders.sorted())" }

    private mutating func addParents(of path: String) {
        let parts = path.split(separator: "/")
        for depth in parts.indices.dropLast() { folders.insert(parts[...depth].joined(separator: "/")) }
    }
}

extension FolderTree {
    /// The assets of the APK tests: nested folders, two empty ones, a file over 1 MiB stored (`.bin`, kept
    /// uncompressed with `-0 bin`), one over 1 MiB that aapt deflates (the size old Android refused to
    /// open compressed), small deflated and stored files, an empty file and odd ASCII names (aapt refuses
    /// names that are not ASCII: "Invalid filename"; ``DirectoryEntryAPK`` has Unicode ones).
    static let androidAssets: FolderTree = {
        var random = SeededRandom(seed: 2012)
        return FolderTree(files: [
            "a.txt": Array("hello, assets\n".utf8),
            "zero.bin": [],
            "docs/readme.txt": random.text(20_000),
            "docs/deeper/notes.txt": random.text(9_000),
            "data/level1.bin": random.bytes(70_000),
            "big/model.bin": random.bytes(1_300_000),
            "big/dictionary.txt": random.text(1_200_000),
            "names/sp ace+a,b@c~.txt": Array("aapt takes ASCII names only".utf8),
        ], emptyFolders: ["empty", "docs/empty too"])
    }()
}
