import AssetPackSystem

/// Where the files of a plan go in a staging tree. A switch moves the staging tree in whole, so each file is at
/// its own path there (``tree``). An upgrade in place moves in only what changed (``InPlaceUpgrade``), so every
/// file it stages — written, resumed or a renamed one linked — goes into one flat folder of the record folder
/// (``StagingNames/movedFilesFolder``) under the SHA-256 of its path (``flatName(_:)``): staging it makes no
/// folder. The folders above 29 changed files (66, made, flushed and removed again) were a quarter of what that
/// upgrade wrote on ext4: 1.39 MB with them, 1.07 MB flat.
enum StagingLayout: Sendable {
    /// Each file at its path.
    case tree
    /// Each file in the flat folder, named by its path's SHA-256.
    case flat

    /// The layout of an upgrade in place (`inPlace`), or of any other install.
    init(inPlace: Bool) { self = inPlace ? .flat : .tree }

    /// The name the file whose path is `path` has in the flat folder: the SHA-256 of the path (``flatDigest(_:)``),
    /// in hex.
    static func flatName(_ path: String) -> String { flatDigest(path).hex }

    /// The SHA-256 of `path`, whose hex digits name its file in the flat folder.
    static func flatDigest(_ path: String) -> SHA256Digest {
        var hash = SHA256()
        hash.update(path)
        return hash.finalize()
    }

    /// The name of the file at `path` in its staging folder.
    func name(of path: AssetPath) -> String {
        switch self {
        case .tree: path.name
        case .flat: Self.flatName(path.string)
        }
    }

    /// The flat folder of `staging` (in its record folder), made when missing when `making`; nil for ``tree``,
    /// and when it is missing and not made.
    func flatFolder(in staging: Descriptor, making: Bool) throws(AssetPackError) -> Descriptor? {
        guard self == .flat else { return nil }
        guard making else { return try io(staging.existingDirectory(at: [StagingNames.recordDirectory, StagingNames.movedFilesFolder])) }
        let record = try io(staging.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        return try io(record.directory(StagingNames.movedFilesFolder, creatingWith: PermissionPolicy.defaultDirectory))
    }
}

/// The staging folders of a plan's files, one per thread (a ``DirectoryCursor`` holds the folders it opened):
/// the parent folder of each path in the tree, or the one flat folder (``StagingLayout``).
final class StagedFileFolders {
    let layout: StagingLayout
    private let cursor: DirectoryCursor
    /// The flat folder, when the layout is flat and it exists (or was made).
    private let flat: Descriptor?

    /// The folders of the files in `staging` laid out as `layout`; `flat`: its flat folder
    /// (``StagingLayout/flatFolder(in:making:)``; a flat layout without one finds no file).
    init(staging: Descriptor, layout: StagingLayout, flat: Descriptor?) {
        self.layout = layout
        cursor = DirectoryCursor(root: staging)
        self.flat = flat
    }

    /// The folder that holds the staged file of `path` (the tree's folders above it must have been made).
    func folder(of path: AssetPath) throws(AssetPackError) -> Descriptor {
        switch layout {
        case .tree: try io(cursor.parent(ofPath: path.string))
        case .flat: try flatFolder(for: path)
        }
    }

    /// The folder that holds the staged file of `path`, or nil when there is none.
    func existingFolder(of path: AssetPath) -> Descriptor? {
        switch layout {
        case .tree: cursor.existingParent(ofPath: path.string)
        case .flat: flat
        }
    }

    /// The name of the staged file of `path` in its folder.
    func name(of path: AssetPath) -> String { layout.name(of: path) }

    private func flatFolder(for path: AssetPath) throws(AssetPackError) -> Descriptor {
        guard let flat else {
            throw AssetPackError(.notFound, "the staging tree has no folder for the files of an upgrade in place", path: path.string)
        }
        return flat
    }
}
