import AssetPack

/// The asset tree of a packed bundle as its manifest describes the bundle's storage: each plain file at
/// its path (with the manifest's size and CRC-32), each packing archive once, the manifest's folders
/// (empty ones included) and every folder above a stored file. The bundle's own bookkeeping folder
/// (`assetpack-meta`) is not listed; it is read by name.
///
/// Nothing is listed through the NDK: this is how a bundle is walked on Android without the APK path.
struct ManifestStoredTree: StoredTree {
    let origin: String
    private typealias Key = [UInt8]
    private var nodes: [Key: StoredNode] = [[]: .directory]
    private var children: [Key: Set<Key>] = [[]: []]

    /// Indexes the storage `manifest` describes.
    /// - Parameter origin: where the manifest was read, for messages.
    /// - Throws: `.manifest` when a storage path is not a safe path, or is both a file and a folder.
    init(_ manifest: BundleManifest, origin: String) throws(AssetPackError) {
        self.origin = origin
        for entry in manifest.entries where !BundleManifest.isReservedName(entry.path.prefix { $0 != "/" }) {
            switch entry.kind {
            case .directory:
                try add(try path(entry.path), as: .directory)
            case .file:
                guard let storage = entry.storage else { throw refuse("entry \"\(entry.path)\" has no storage") }
                let plain = storage.form == .plain
                try add(try path(storage.file), as: .file(size: plain ? entry.size : nil, crc32: plain ? entry.crc32 : nil))
            }
        }
    }

    func node(_ path: AssetPath) -> StoredNode? { nodes[Self.key(path)] }

    func names(in path: AssetPath) -> [String] {
        guard let names = children[Self.key(path)] else { return [] }
        return names.sorted { $0.lexicographicallyPrecedes($1) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// Records `node` at `path` and every folder above it. A plain file met twice keeps the first sizes;
    /// an archive holding several files is one file.
    private mutating func add(_ path: AssetPath, as node: StoredNode) throws(AssetPackError) {
        var parent: Key = []
        for (depth, component) in path.components.enumerated() {
            let key = parent.isEmpty ? Array(component.utf8) : parent + [UInt8(ascii: "/")] + Array(component.utf8)
            children[parent, default: []].insert(Array(component.utf8))
            let wanted = depth == path.components.count - 1 ? node : .directory
            switch (nodes[key], wanted) {
            case (nil, _): nodes[key] = wanted
            case (.directory, .directory), (.file, .file): break
            default: throw refuse("stores \"\(path)\" where a file and a folder meet")
            }
            if wanted == .directory, children[key] == nil { children[key] = [] }
            parent = key
        }
    }

    private func path(_ text: String) throws(AssetPackError) -> AssetPath {
        do {
            return try AssetPath(text)
        } catch {
            throw refuse("lists an \(error.message)")
        }
    }

    private func refuse(_ message: String) -> AssetPackError {
        AssetPackError(.manifest, "manifest \(message)", path: origin)
    }

    private static func key(_ path: AssetPath) -> Key { Array(path.string.utf8) }
}
