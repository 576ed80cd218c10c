/// The logical tree a bundle manifest describes, indexed for ``PackedBundleSource``: the files with where
/// their bytes are, and each folder's children (folders implied by longer paths included). Built once;
/// a manifest that cannot describe a tree (a path both file and folder, a file listed twice, a storage
/// location that is not a safe path) is refused with `.manifest`.
///
/// Paths are keyed by their UTF-8 bytes, not by `String` equality, so names that differ only in Unicode
/// normalization stay two names and one can never be opened through the other.
struct PackedBundleTree: Sendable {
    /// One logical file.
    struct File: Sendable {
        var size: UInt64
        var crc32: UInt32
        var location: BundleManifest.Location
    }

    private typealias Key = [UInt8]
    private var files: [Key: File] = [:]
    private var children: [Key: [String]] = [:]

    /// Indexes `manifest`; entries under a reserved folder (`BundleManifest.isReservedName(_:)`) are hidden.
    /// - Parameter origin: where the manifest was read, for messages.
    init(_ manifest: BundleManifest, origin: String) throws(AssetPackError) {
        var names: [Key: Set<Key>] = [[]: []]
        for entry in manifest.entries {
            let path = try Self.path(entry.path, origin: origin)
            if path.isRoot || BundleManifest.isReservedName(path.components[0]) { continue }
            Self.addParents(of: path, isDirectory: entry.kind == .directory, to: &names)
            guard entry.kind == .file else { continue }
            guard files[Self.key(path)] == nil else { throw Self.refuse("lists \"\(path)\" twice", origin) }
            files[Self.key(path)] = try Self.file(entry, origin: origin)
        }
        for key in files.keys where names[key] != nil {
            throw Self.refuse("lists \"\(String(decoding: key, as: UTF8.self))\" as both a file and a directory", origin)
        }
        children = names.mapValues { $0.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The file at `path`, or nil when it is a folder or not in the tree.
    func file(_ path: AssetPath) -> File? { files[Self.key(path)] }

    /// True when `path` is a folder of the tree (the root always is).
    func isDirectory(_ path: AssetPath) -> Bool { children[Self.key(path)] != nil }

    /// The names in the folder at `path`, sorted by bytes; `[]` for a file or a path not in the tree.
    func names(in path: AssetPath) -> [String] { children[Self.key(path)] ?? [] }

    private static func key(_ path: AssetPath) -> Key { Array(path.string.utf8) }

    private static func addParents(of path: AssetPath, isDirectory: Bool, to names: inout [Key: Set<Key>]) {
        var parent: Key = []
        for (depth, name) in path.components.enumerated() {
            names[parent, default: []].insert(Array(name.utf8))
            parent = parent.isEmpty ? Array(name.utf8) : parent + [UInt8(ascii: "/")] + Array(name.utf8)
            let isFolder = depth < path.components.count - 1 || isDirectory
            if isFolder, names[parent] == nil { names[parent] = [] }
        }
    }

    private static func file(_ entry: BundleManifest.Entry, origin: String) throws(AssetPackError) -> File {
        guard let size = entry.size, let crc32 = entry.crc32 else {
            throw refuse("entry \"\(entry.path)\" lacks size, CRC-32 or storage", origin)
        }
        return File(size: size, crc32: crc32, location: try entry.location(origin: origin))
    }

    private static func path(_ text: String, origin: String) throws(AssetPackError) -> AssetPath {
        do {
            return try AssetPath(text)
        } catch {
            throw refuse("lists an \(error.message)", origin)
        }
    }

    private static func refuse(_ message: String, _ origin: String) -> AssetPackError {
        AssetPackError(.manifest, "manifest \(message)", path: origin)
    }
}
