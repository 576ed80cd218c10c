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

/// Walks a source folder in a fixed order — children sorted by the UTF-8 bytes of their names, depth
/// first — so the same tree gives the same list whatever order the folders were created in.
///
/// It refuses, with an error naming the path: a symlink (unless ``followSymlinks``; a followed link that
/// dangles, leads to a folder already walked — a loop, or a folder reached twice, which would repeat its files
/// without end in a graph of links — or points into `excluded` is refused too), a FIFO, socket or device, a
/// name that is not valid UTF-8 or not a safe `AssetPath` component, a folder it cannot read, a top-level
/// `assetpack-meta` or `.assetpack` (a bundle's bookkeeping folder and an install's record folder,
/// `BundleManifest.isReservedName(_:)`), and what `expand` would refuse in the bundle: a name reserved for the
/// installer's own files, and two names of one folder equal but for case or Unicode normalization (one file on
/// the file systems of Apple platforms). So every bundle the packer writes can be expanded.
///
/// What ``exclusions`` match is left out before any of those checks (an excluded folder is not entered).
///
/// With ``followSymlinks`` a link is followed wherever it points, inside the source folder or not: the
/// developer asked for it, and sharing assets between apps through links is the usual reason.
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

    /// Every file and folder below `root` (not `root` itself), in walking order.
    /// - Throws: `.notFound` when `root` does not exist, `.invalidArgument` when it is not a folder, and the
    ///   refusals listed on the type.
    public func scan(_ root: String) throws(AssetPackError) -> [SourceItem] {
        let top = try Self.checkRoot(root)
        var items: [SourceItem] = []
        var walk = Walk(scanner: self, ancestors: [Identity(top)])
        var trimmed = root
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        try walk.visit(trimmed, as: .root, into: &items)
        return items
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

    /// The state of one walk: the folders on the current path, for loop detection, and every folder walked so
    /// far, by its logical path, for a folder reached again through a link.
    struct Walk {
        let scanner: SourceScanner
        var ancestors: [Identity]
        var walked: [Identity: AssetPath] = [:]

        mutating func visit(_ directory: String, as logical: AssetPath, into items: inout [SourceItem]) throws(AssetPackError) {
            guard let listed = try io(FileSystem.names(in: directory)).strings else {
                throw AssetPackError(.unsafePath, "holds a file whose name is not valid UTF-8", path: directory)
            }
            let names = listed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            var folded: [String: String] = [:]
            for name in names {
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
                try visitChild(sourcePath, path: path, into: &items)
            }
        }

        private mutating func visitChild(_ sourcePath: String, path: AssetPath,
                                         into items: inout [SourceItem]) throws(AssetPackError) {
            guard var info = try io(FileSystem.status(sourcePath)) else {
                throw AssetPackError(.notFound, "disappeared while scanning", path: sourcePath)
            }
            if scanner.exclusions.excludes(path, isDirectory: info.kind == .directory) { return }
            var resolved = sourcePath
            if info.kind == .symlink {
                (info, resolved) = try scanner.follow(sourcePath)
                if info.kind == .directory && scanner.exclusions.excludes(path, isDirectory: true) { return }
            }
            switch info.kind {
            case .file:
                items.append(SourceItem(path: path, sourcePath: resolved, kind: .file, size: info.size,
                                        isExecutable: info.isExecutable))
            case .directory:
                let identity = Identity(info)
                if ancestors.contains(identity) {
                    throw AssetPackError(.symlink, "symbolic link loops back to a folder that contains it", path: sourcePath)
                }
                if let first = walked.updateValue(path, forKey: identity) {
                    throw AssetPackError(.symlink, "symbolic link leads to a folder already packed as \"\(first)\"; "
                                         + "a folder is packed once (link to it once, or copy it)", path: sourcePath)
                }
                items.append(SourceItem(path: path, sourcePath: resolved, kind: .directory, size: 0, isExecutable: false))
                ancestors.append(identity)
                try visit(resolved, as: path, into: &items)
                ancestors.removeLast()
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
