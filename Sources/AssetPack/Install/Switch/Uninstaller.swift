import AssetPackSystem

/// What ``InstalledTree/uninstall(at:dryRun:)`` removed. Encoded, its stored fields by name (what
/// `assetpack uninstall --json` prints beside `removed`).
public struct UninstallResult: Sendable, Equatable, Encodable {
    /// The destination, absolute.
    public var destination: String
    /// The stamp of the tree removed; nil when no tree was installed there.
    public var identity: String?
    /// Files (and symlinks) its record listed, and their bytes.
    public var files = 0
    public var bytes: UInt64 = 0
    /// Names in the tree that its record did not know, removed with it, in path order (a folder once,
    /// ending with `/`).
    public var unknown: [String] = []
    /// Hidden trees of this destination that an interrupted install left beside it (staging, previous
    /// version), removed too: their paths.
    public var leftovers: [String] = []

    /// True when anything was removed.
    public var removedAnything: Bool { identity != nil || !leftovers.isEmpty }
}

extension InstalledTree {
    /// Removes the tree installed at `destination`, its record, and what an interrupted install left beside
    /// it, under the install lock. Only a folder with an install record (`.assetpack/identity`) is removed;
    /// links are removed, never followed; the tree is first renamed aside in one step, so a crash leaves only
    /// a hidden tree the next call removes. A missing destination is not an error (only leftovers go).
    ///
    /// Files the app put inside the tree go with it; they are listed in ``UninstallResult/unknown``.
    /// `dryRun`: finds and refuses the same, removes nothing (`assetpack uninstall --dry-run`).
    /// - Throws: ``AssetPackError/Code/invalidArgument`` for a folder without a record, a file or a link.
    @discardableResult
    public static func uninstall(at destination: String,
                                 dryRun: Bool = false) throws(AssetPackError) -> UninstallResult {
        let location = try InstallLocation(path: destination)
        var result = UninstallResult(destination: location.destination)
        guard let parent = try location.openParent() else { return result }
        let lock = try InstallLock(parent)
        defer { lock.release() }
        if let found = try InstalledTreeCheck.inspect(location.name, in: parent, readContents: false, jobs: 1) {
            guard let stamp = found.stamp else {
                throw AssetPackError(.invalidArgument, "holds no install record (.assetpack/identity); refusing to remove a folder "
                                     + "that assetpack did not install", path: location.destination)
            }
            result.identity = stamp
            (result.files, result.bytes, result.unknown) = (found.outcome.files, found.outcome.bytes, found.outcome.unknown)
        }
        for name in [location.stagingName, location.previousName] where try io(parent.status(name)) != nil {
            result.leftovers.append(parent.child(name))
            if !dryRun { try io(TreeRemoval.remove(name, in: parent)) }
        }
        if result.identity != nil && !dryRun {
            try io(parent.rename(location.name, to: location.previousName, in: parent))
            try io(TreeRemoval.remove(location.previousName, in: parent))
        }
        return result
    }
}

extension AssetInstaller {
    /// Removes the installed tree of ``destination`` (see ``InstalledTree/uninstall(at:dryRun:)``).
    @discardableResult
    public func uninstall() throws(AssetPackError) -> UninstallResult {
        try InstalledTree.uninstall(at: destination)
    }
}
