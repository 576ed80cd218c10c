import AssetPack
import AssetPackZip
import Foundation

/// An expected asset tree: files with contents and directories (empty ones included). Writes itself as a
/// folder or a zip archive, and says what every source over it must answer.
package struct AssetTree: Sendable {
    /// Path → contents.
    package var files: [String: [UInt8]]
    /// Every directory path, implied parents included.
    package var directories: Set<String>

    package init(files: [String: [UInt8]], emptyDirectories: [String] = []) {
        self.files = files
        var directories: Set<String> = []
        for path in Array(files.keys) + emptyDirectories {
            let parts = path.split(separator: "/").map(String.init)
            let folderCount = files[path] == nil ? parts.count : parts.count - 1
            for depth in 0..<folderCount { directories.insert(parts[0...depth].joined(separator: "/")) }
        }
        self.directories = directories
    }

    /// Files, nested and empty directories, a directory named like a file, a file without extension,
    /// an empty file, Unicode names and one large file.
    package static let standard: AssetTree = {
        var random = SeededRandom(seed: 42)
        return AssetTree(files: [
            "a.txt": Array("hello, assets\n".utf8),
            "README": Array("no extension".utf8),
            "zero.bin": [],
            "nested/y.txt": random.text(2_000),
            "nested/deeper/x.bin": random.bytes(5_000),
            "data.bin/inner.txt": Array("a folder named like a file".utf8),
            "data.bin/more.dat": random.bytes(100),
            "データ/木.txt": Array("unicode".utf8),
            "big.bin": random.text(300_000),
        ], emptyDirectories: ["empty", "nested/empty too"])
    }()

    /// The items a walk must find, sorted.
    package var items: [WalkedItem] {
        let all = files.keys.map { (try! AssetPath($0), WalkedItem.Kind.file) }
            + directories.map { (try! AssetPath($0), WalkedItem.Kind.directory) }
        return all.map { WalkedItem(path: $0.0, kind: $0.1) }.sorted()
    }

    /// The names directly inside `directory` ("" for the root).
    package func children(of directory: String) -> Set<String> {
        let prefix = directory.isEmpty ? "" : directory + "/"
        let paths = Array(files.keys) + Array(directories)
        return Set(paths.filter { $0.hasPrefix(prefix) && !$0.dropFirst(prefix.count).contains("/") }
            .map { String($0.dropFirst(prefix.count)) })
    }

    /// Writes the tree under the folder `root`.
    package func write(to root: String) throws {
        for directory in directories {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for (path, bytes) in files {
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + path))
        }
    }

    /// Writes the tree as a zip archive at `path`, under `prefix` (e.g. "assets/"), with or without
    /// directory entries (APKs have none), choosing each file's method with `method`.
    package func writeZip(to path: String, prefix: String = "", directoryEntries: Bool = true, extra: [String: [UInt8]] = [:],
                  method: (String) -> CompressionMethod = { _ in .deflate }) throws {
        let writer = try ZipWriter(path: path, options: .deterministic())
        if directoryEntries {
            for directory in directories.sorted() { try writer.addDirectory(prefix + directory) }
        }
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            try writer.addFile(prefix + name, contents: bytes, method: method(name))
        }
        for (name, bytes) in extra.sorted(by: { $0.key < $1.key }) {
            try writer.addFile(name, contents: bytes, method: .deflate)
        }
        try writer.finish(sync: false)
    }

    /// The tree without its empty directories (what an archive without directory entries can hold).
    package var withoutEmptyDirectories: AssetTree {
        AssetTree(files: files)
    }
}
