import AssetPack
import AssetPackZip
import Foundation
import TestSupport

/// What a folder on disk holds, the `.assetpack` record at its top left out: files with contents,
/// folders, and symlinks with their targets.
struct DiskTree: Equatable, CustomStringConvertible {
    var files: [String: [UInt8]] = [:]
    var directories: Set<String> = []
    var symlinks: [String: String] = [:]

    /// Reads the folder at `root` (nil when it does not exist).
    static func read(_ root: String) -> DiskTree? {
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
    init(_ tree: AssetTree) {
        files = tree.files
        directories = tree.directories
    }

    init() {}

    var description: String {
        "files: \(files.keys.sorted()), directories: \(directories.sorted()), symlinks: \(symlinks)"
    }
}

/// The inode number of `path` (not following a symlink).
func inodeNumber(_ path: String) -> UInt64? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
}

/// Hidden names (assetpack's staging and previous trees would be) in the folder `path`, sorted.
func hiddenNames(_ path: String) -> [String] {
    folderNames(path).filter { $0.hasPrefix(".") }
}

/// Creates the folder holding `path` (ZipWriter does not).
func makeParent(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
}

/// Names in the folder `path`, sorted.
func folderNames(_ path: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
}

/// A source that counts the calls made to it, to prove an up-to-date check does no walk.
final class CallCountingSource: AssetSource, @unchecked Sendable {
    let base: any AssetSource
    private let lock = NSLock()
    private(set) var lists = 0
    private(set) var opens: [String] = []

    init(_ base: any AssetSource) { self.base = base }

    var name: String { base.name }

    func list(_ path: AssetPath) throws(AssetPackError) -> [String] {
        lock.lock(); lists += 1; lock.unlock()
        return try base.list(path)
    }

    func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream {
        lock.lock(); opens.append(path.string); lock.unlock()
        return try base.open(path)
    }
}

/// Builds test inputs: packed bundles (via ``PackedBundle``), folders, and archives with chosen entries.
enum ExpansionFixtures {
    /// A packed bundle folder for `tree` under `folder`; `packed` files go into `NAME.zip` archives.
    @discardableResult
    static func bundle(_ tree: AssetTree, packed: [String: CompressionMethod], at folder: String,
                       scratch: TemporaryDirectory) throws -> PackedBundle {
        let bundle = try PackedBundle(tree, packed: packed, scratch: scratch)
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try bundle.stored.write(to: folder)
        return bundle
    }

    /// A zip archive at `path` whose entries are written in order: (name, contents, method).
    static func zip(at path: String, _ entries: [(String, [UInt8], CompressionMethod)], permissions: UInt32 = 0o644) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let writer = try ZipWriter(path: path)
        for (name, bytes, method) in entries {
            try writer.addFile(name, contents: bytes, method: method, permissions: permissions)
        }
        try writer.finish(sync: false)
    }

    /// The bytes of a zip archive with `entries`.
    static func zipBytes(_ entries: [(String, [UInt8], CompressionMethod)], scratch: TemporaryDirectory) throws -> [UInt8] {
        let path = scratch.file("zip-\(UUID().uuidString).zip")
        try zip(at: path, entries)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
