import AssetPack
import AssetPackSystem

/// One file or folder found in the source tree.
public struct SourceItem: Sendable, Hashable {
    /// File or directory.
    public enum Kind: Sendable, Hashable {
        case file, directory
    }

    /// The path in the logical tree.
    public var path: AssetPath
    /// Where it is on disk (below the source folder, or a symlink's target when links are followed).
    public var sourcePath: String
    /// File or directory.
    public var kind: Kind
    /// Bytes (files only; 0 for directories).
    public var size: UInt64
    /// True when the owner-execute bit is set (files only): recorded as mode 0755.
    public var isExecutable: Bool
}

/// Walks a source folder in a fixed order — the manifest's path order, by the UTF-8 bytes of whole paths
/// (`Walk`) — so the same tree gives the same items whatever order the folders were created in, and
/// what is built from them streams into the manifest. It holds the folders on the current path, not the tree.
///
/// It refuses, with an error naming the path, whatever `expand` would refuse in the bundle, so every bundle
/// the packer writes can be expanded: a symlink (unless ``followSymlinks``; then a dangling link, a loop or a
/// link into `excluded`), a special file, an unsafe or non-UTF-8 name, a reserved top-level name, and two
/// names of one folder equal but for case or Unicode normalization. ``exclusions`` are left out first.
public struct SourceScanner: Sendable {
    /// Follow symbolic links instead of refusing them.
    public var followSymlinks: Bool
    /// Absolute, resolved paths that a followed link must not lead into (the output being written).
    public var excluded: [String]
    /// The files and folders to leave out (`--exclude`).
    public var exclusions: ExcludePatterns

    /// A scanner; links are refused unless `followSymlinks`.
    public init(followSymlinks: Bool = false, excluded: [String] = [], exclusions: ExcludePatterns = .none) {
        self.followSymlinks = followSymlinks
        self.excluded = excluded
        self.exclusions = exclusions
    }

    /// Hands every file and folder below `root` (not `root` itself) to `visit`, in path order (the
    /// manifest's: by the bytes of the whole path), with the names of its folder.
    /// - Throws: `.notFound` when `root` does not exist, `.invalidArgument` when it is not a folder, the
    ///   refusals listed on the type, and what `visit` throws.
    public func scan(_ root: String,
                     visit: (SourceItem, FolderNames) throws(AssetPackError) -> Void) throws(AssetPackError) {
        let top = try Self.checkRoot(root)
        var walk = Walk(scanner: self, ancestors: [Identity(top)])
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        try walk.visit(trimmed, as: .root, visit)
    }

    /// Checks that `root` is a folder (following a link to one).
    /// - Throws: `.notFound` when nothing is there, `.invalidArgument` when it is not a folder.
    @discardableResult
    static func checkRoot(_ root: String) throws(AssetPackError) -> FileStatus {
        guard let top = try io(FileSystem.status(root, followingLinks: true)) else {
            throw AssetPackError(.notFound, "source folder does not exist", path: root)
        }
        guard top.kind == .directory else {
            throw AssetPackError(.invalidArgument, "source is not a folder", path: root)
        }
        return top
    }

    /// A directory's identity on disk, to notice a followed link that loops back.
    struct Identity: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: FileStatus) { (device, inode) = (info.device, info.inode) }
    }

    /// The state of one walk: the folders on the current path, for loop detection, and, when links are
    /// followed, every folder walked so far by its logical path, for a folder reached again through a link
    /// (without links no folder can be reached twice, and nothing is kept).
    struct Walk {
        let scanner: SourceScanner
        var ancestors: [Identity]
        var walked: [Identity: AssetPath] = [:]

        /// One step of a folder's walk: an item handed over, or the walk into a folder's contents.
        private struct Step {
            /// What orders the step among its siblings': the name, or the name and a `/` to enter a folder.
            var key: String
            var item: SourceItem
            /// The folder entered, nil for the step that hands the item over.
            var enters: Identity?
        }

        /// Walks `directory`: its children in path order, each folder's contents where its name and a `/`
        /// sort. As `a-b` sorts before `a/b`, a folder `a` is entered after its siblings `a-b` and `a.b`.
        mutating func visit(_ directory: String, as logical: AssetPath,
                            _ visit: (SourceItem, FolderNames) throws(AssetPackError) -> Void) throws(AssetPackError) {
            var steps: [Step] = []
            for (name, path) in try names(in: directory, as: logical) {
                guard let (item, folder) = try child(directory + "/" + name, path: path) else { continue }
                steps.append(Step(key: name, item: item, enters: nil))
                if let folder { steps.append(Step(key: name + "/", item: item, enters: folder)) }
            }
            steps.sort { Memory.bytesPrecede($0.key, $1.key) }
            let names = FolderNames(steps.lazy.filter { $0.enters == nil }.map(\.item.path.name))
            for step in steps {
                guard let identity = step.enters else {
                    try visit(step.item, names)
                    continue
                }
                ancestors.append(identity)
                try self.visit(step.item.sourcePath, as: step.item.path, visit)
                ancestors.removeLast()
            }
        }

        /// The names in `directory` with their logical paths, checked: valid UTF-8, not reserved, no two
        /// equal but for case or normalization. A folded twin can only be a sibling: ``PlanBuilder/foldedKey(_:)``
        /// folds each component on its own, so two paths fold alike only when their parents do too.
        private func names(in directory: String, as logical: AssetPath) throws(AssetPackError) -> [(String, AssetPath)] {
            guard let listed = try io(FileSystem.names(in: directory)).strings else {
                throw AssetPackError(.unsafePath, "holds a file whose name is not valid UTF-8", path: directory)
            }
            var folded: [String: String] = [:]
            var named: [(String, AssetPath)] = []
            for name in listed.sorted(by: Memory.bytesPrecede) {
                let sourcePath = directory + "/" + name
                if logical.isRoot && BundleManifest.isReservedName(name) {
                    throw AssetPackError(.conflict, "the name \(name) is reserved for the bundle manifest; rename it",
                                         path: sourcePath)
                }
                let path: AssetPath
                do { path = try logical.appending(name) } catch { throw AssetPackError(error.code, error.message, path: sourcePath) }
                try PlanBuilder.checkReserved(path, origin: sourcePath, source: sourcePath)
                if let twin = folded.updateValue(name, forKey: PlanBuilder.foldedKey(path)) {
                    throw AssetPackError(.conflict, "\"\(twin)\" and \"\(name)\" differ only in case or "
                                         + "Unicode normalization: they would be one file on Apple platforms, and expand refuses "
                                         + "them; rename one", path: directory)
                }
                named.append((name, path))
            }
            return named
        }

        /// The item at `sourcePath` and, for a folder, its identity; nil when it is excluded. A followed link
        /// is resolved.
        private mutating func child(_ sourcePath: String,
                                    path: AssetPath) throws(AssetPackError) -> (SourceItem, Identity?)? {
            guard var info = try io(FileSystem.status(sourcePath)) else {
                throw AssetPackError(.notFound, "disappeared while scanning", path: sourcePath)
            }
            if scanner.exclusions.excludes(path, isDirectory: info.kind == .directory) { return nil }
            var resolved = sourcePath
            if info.kind == .symlink {
                (info, resolved) = try scanner.follow(sourcePath)
                if info.kind == .directory && scanner.exclusions.excludes(path, isDirectory: true) { return nil }
            }
            switch info.kind {
            case .file:
                return (SourceItem(path: path, sourcePath: resolved, kind: .file, size: info.size, isExecutable: info.isExecutable), nil)
            case .directory:
                let identity = Identity(info)
                if ancestors.contains(identity) {
                    throw AssetPackError(.symlink, "symbolic link loops back to a folder that contains it", path: sourcePath)
                }
                if scanner.followSymlinks, let first = walked.updateValue(path, forKey: identity) {
                    throw AssetPackError(.symlink, "symbolic link leads to a folder already packed as \"\(first)\"; "
                                         + "a folder is packed once (link to it once, or copy it)", path: sourcePath)
                }
                return (SourceItem(path: path, sourcePath: resolved, kind: .directory, size: 0, isExecutable: false), identity)
            case .symlink:
                throw AssetPackError(.symlink, "symbolic link could not be resolved", path: sourcePath)
            case .fifo, .socket, .device, .other:
                throw AssetPackError(.unsupported, "is a \(info.kind); only files and folders can be packed", path: sourcePath)
            }
        }
    }

    /// Resolves the link at `path` when links are followed; refuses it otherwise.
    func follow(_ path: String) throws(AssetPackError) -> (FileStatus, String) {
        guard followSymlinks else {
            throw AssetPackError(.symlink, "is a symbolic link; links are not packed (use --follow-symlinks to pack what it points to)",
                                 path: path)
        }
        guard let target = FileSystem.canonicalPath(path), let info = try io(FileSystem.status(target)) else {
            throw AssetPackError(.symlink, "symbolic link points to nothing", path: path)
        }
        if let output = excluded.first(where: { OutputLocation.isInside(target, $0) }) {
            throw AssetPackError(.symlink, "symbolic link points into the output \(output)", path: path)
        }
        return (info, target)
    }
}

/// The names of one folder's children (excluded ones left out), lowercased, and the names the packer gives
/// archives there: what a new archive's name must not clash with (`BundlePlan`). Lives while the walk is in
/// that folder; a name can only clash with a sibling's.
public final class FolderNames {
    /// The names taken, lowercased.
    var taken: Set<String>

    /// The names of a folder's children.
    init<Names: Sequence<String>>(_ names: Names) {
        taken = Set(names.lazy.map { $0.lowercased() })
    }
}
