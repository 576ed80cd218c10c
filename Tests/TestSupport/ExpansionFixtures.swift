import AssetPack
import AssetPackZip
import Foundation

/// What a folder on disk holds, the `.assetpack` record at its top left out: files with contents,
/// folders, and symlinks with their targets.
package struct DiskTree: Equatable, CustomStringConvertible {
    package var files: [String: [UInt8]] = [:]
    package var directories: Set<String> = []
    package var symlinks: [String: String] = [:]

    /// Reads the folder at `root` (nil when it does not exist).
    package static func read(_ root: String) -> DiskTree? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        var tree = DiskTree()
        tree.collect(root, prefix: "")
        return tree
    }

    private mutating func collect(_ folder: String, prefix: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for name in names where !(prefix.isEmpty && name == ".assetpack") {
            let full = folder + "/" + name, relative = prefix + name
            let type = (try? FileManager.default.attributesOfItem(atPath: full)[.type] as? FileAttributeType) ?? nil
            switch type {
            case .typeDirectory?:
                directories.insert(relative)
                collect(full, prefix: relative + "/")
            case .typeSymbolicLink?:
                symlinks[relative] = try? FileManager.default.destinationOfSymbolicLink(atPath: full)
            default:
                files[relative] = Array((try? Data(contentsOf: URL(fileURLWithPath: full))) ?? Data())
            }
        }
    }

    /// The expected disk tree of an asset tree.
    package init(_ tree: AssetTree) {
        files = tree.files
        directories = tree.directories
    }

    package init() {}

    package var description: String {
        "files: \(files.keys.sorted()), directories: \(directories.sorted()), symlinks: \(symlinks)"
    }
}

/// A source that counts the calls made to it, to prove an up-to-date check does no walk.
package final class CallCountingSource: AssetSource, @unchecked Sendable {
    package let base: any AssetSource
    private let lock = NSLock()
    package private(set) var lists = 0
    package private(set) var opens: [String] = []

    package init(_ base: any AssetSource) { self.base = base }

    package var name: String { base.name }

    package func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        lock.lock(); lists += 1; lock.unlock()
        return try base.list(path)
    }

    package func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        lock.lock(); opens.append(path.string); lock.unlock()
        return try base.open(path)
    }
}

/// Builds test inputs: packed bundles (via ``PackedBundle``), folders, and archives with chosen entries.
package enum ExpansionFixtures {
    /// A packed bundle folder for `tree` under `folder`; `packed` files go into `NAME.zip` archives.
    @discardableResult
    package static func bundle(_ tree: AssetTree, packed: [String: CompressionMethod], at folder: String,
                       scratch: TemporaryDirectory) throws -> PackedBundle {
        let bundle = try PackedBundle(tree, packed: packed, scratch: scratch)
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try bundle.stored.write(to: folder)
        return bundle
    }

    /// A zip archive at `path` whose entries are written in order: (name, contents, method).
    package static func zip(at path: String, _ entries: [(String, [UInt8], CompressionMethod)], permissions: UInt32 = 0o644) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writer = try ZipWriter(path: path)
        for (name, bytes, method) in entries {
            try writer.addFile(name, contents: bytes, method: method, permissions: permissions)
        }
        try writer.finish(sync: false)
    }

    /// The bytes of a zip archive with `entries`.
    package static func zipBytes(_ entries: [(String, [UInt8], CompressionMethod)], scratch: TemporaryDirectory) throws -> [UInt8] {
        let path = scratch.file("zip-\(UUID().uuidString).zip")
        try zip(at: path, entries)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
