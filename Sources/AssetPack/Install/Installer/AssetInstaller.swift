import AssetPackSystem

/// First-launch expansion: puts a bundle (or any asset source) on writable storage, once, safely.
///
/// ```swift
/// let bundle = try BundleSource(bundle: .main, subdirectory: "assets.bundle")
/// let installer = try AssetInstaller(source: bundle, destination: appSupport.appendingPathComponent("Assets"))
/// for try await status in installer.statusUpdates() {
///     if case .writing(let counts) = status { print(counts.bytesDone, "of", counts.bytesTotal) }
/// }
/// ```
///
/// Three ways to follow an install from Swift concurrency: ``statusUpdates(every:)`` (an async sequence of
/// ``InstallUpdate``), ``install(reportingTo:)`` (a Foundation `Progress`, cancellable), and
/// ``install(progress:)`` (a callback); ``installSynchronously(progress:cancellation:)`` blocks the calling
/// thread instead. ``log`` sees what was skipped, resumed, reused or thrown away.
///
/// - **Idempotent and fast when done:** a complete destination holds `.assetpack/identity`; a call whose
///   bundle has that identity reads it and the bundle's `assetpack-meta/identity` and returns
///   ``ExpansionResult/upToDate``, with no walk. That check trusts the tree: ``verify()`` reads every file,
///   ``repair(progress:cancellation:)`` also writes what differs again, ``status()`` reads no contents.
/// - **The previous version stays usable:** the new tree is built in the hidden sibling
///   `.<name>.assetpack-staging` and switched in with one atomic exchange of names; the old tree is then removed.
/// - **Crash-safe and resumable:** every file is checked (size and CRC-32) as it is written, and the record
///   is written only once every file is in place; the next call keeps the staged files that check out.
///   A failure the input causes (a damaged or hostile archive, a limit, no free space) removes the staging
///   tree and the parent folders the call created (`FailureCleanup`).
/// - **Power-loss safe by default:** the staging tree is flushed, its record with it, before the stamp that
///   marks it complete is written (``ExpansionOptions/durability``).
/// - **Upgrade-aware:** files whose path, size, CRC-32 and mode match the installed record are hard-linked
///   from the current tree instead of rewritten; files gone from the bundle disappear.
/// - **What assetpack did not write is kept** by an upgrade or repair (``ExpansionResult/unknownKept``)
///   unless ``ExpansionOptions/removesUnknownEntries`` asks otherwise; a new file where such an entry is
///   fails with ``AssetPackError/Code/conflict`` and changes nothing.
/// - **One at a time:** concurrent calls for one destination wait on a `flock` of the parent folder.
/// - **Checked up front:** names, conflicts and free space (``AssetPackError/Code/noSpace``) are checked
///   before any file is written.
/// - On Apple platforms the tree is excluded from backups (`URLResourceValues.isExcludedFromBackup`).
public struct AssetInstaller: Sendable {
    /// Where the assets come from: a packed bundle (with `assetpack-meta/manifest.json`), a plain folder, or an
    /// archive (optionally a subtree of it).
    public let source: any AssetSource
    /// The destination folder, absolute.
    public let destination: String
    /// How to expand.
    public internal(set) var options: ExpansionOptions
    /// Called with what an install did that an app may want in its log (``InstallEvent``), on the
    /// installing thread; nil (the default) logs nothing.
    public var log: InstallLog?

    let parentPath: String
    let name: String

    /// An installer of `source` into the folder `destination` (created with its parents when missing).
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` cannot be a destination (empty,
    ///   `/`, `.`, `..`, a name too long to have its staging tree beside it, or a relative path when the current
    ///   folder is gone).
    public init(source: any AssetSource, destination: String, options: ExpansionOptions = ExpansionOptions()) throws(AssetPackError) {
        guard !destination.isEmpty else {
            // Not the current folder: an empty path is a mistake (an unset variable), never a choice.
            throw AssetPackError(.invalidArgument, "the destination is an empty path; name a folder to create or replace")
        }
        var path = destination
        if !path.hasPrefix("/") {
            // Never resolved against `/` or anywhere else: a relative path means the current folder, which must exist.
            guard let current = try? FileSystem.currentDirectory() else {
                throw AssetPackError(.invalidArgument, "is a relative path, and the current folder no longer exists; "
                                     + "give an absolute path", path: destination)
            }
            path = current + "/" + path
        }
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = parts.last, last != ".", last != ".." else {
            throw AssetPackError(.invalidArgument, "cannot expand into this folder; name a folder to create or replace", path: destination)
        }
        // The staging and previous trees beside it are named `.NAME.assetpack-previous`: they must fit in a name.
        let longest = 255 - StagingNames.previous(for: "").utf8.count
        guard last.utf8.count <= longest else {
            throw AssetPackError(.invalidArgument, "the folder's name is \(last.utf8.count) bytes long; assetpack needs room for "
                                 + "a hidden sibling with a longer name, so it may have at most \(longest) bytes", path: destination)
        }
        self.source = source
        self.name = String(last)
        self.parentPath = "/" + parts.dropLast().joined(separator: "/")
        self.destination = Self.path(of: name, in: parentPath)
        var options = options
        options.spoolFolder = Self.path(of: StagingNames.staging(for: name), in: parentPath)
        self.options = options
    }

    /// True when the destination already holds exactly this bundle. Reads only the destination's record
    /// stamp and the bundle's `assetpack-meta/identity`; an archive (``ZipAssetSource``) is compared by the
    /// fingerprint of its central directory. Any other source without a manifest answers false.
    public func isUpToDate() -> Bool { upToDateStamp() != nil }

    /// The stamp when the destination is known complete for this source without a plan, else nil.
    func upToDateStamp() -> String? {
        guard let recorded = InstallRecord.stamp(atPath: destination) else { return nil }
        if let wanted = ExpansionPlanner.quickStamp(source) {
            guard recorded == wanted else { return nil }
        } else if let fingerprint = SourceFingerprint.of(source.storage, options: options) {
            guard InstallRecord.sourceFingerprint(atPath: destination) == fingerprint + " " + recorded else { return nil }
        } else {
            return nil
        }
        return hasStagingTree || hasPreviousTree ? nil : recorded
    }

    /// True when a staging tree (``StagingNames/staging(for:)``) is beside the destination.
    var hasStagingTree: Bool { existsBeside(StagingNames.staging(for: name)) }

    /// True when a previous tree (``StagingNames/previous(for:)``) is beside the destination.
    var hasPreviousTree: Bool { existsBeside(StagingNames.previous(for: name)) }

    /// True when `sibling` exists in the destination's parent folder.
    private func existsBeside(_ sibling: String) -> Bool { FileSystem.exists(Self.path(of: sibling, in: parentPath)) }

    /// The path of `name` in the absolute folder `parent`.
    static func path(of name: String, in parent: String) -> String { (parent == "/" ? "" : parent) + "/" + name }

    /// Expands the source into the destination unless it is already there (see the type's notes), on the
    /// calling thread. From Swift concurrency, use ``install(progress:)`` or ``statusUpdates(every:)``, which
    /// run it on a thread of their own and stop it when the task is cancelled.
    /// - Parameters:
    ///   - progress: called with counts after each file and every few MiB inside large files, one call at a
    ///     time (possibly from a worker thread); keep it short.
    ///   - cancellation: set it to stop at the next file or buffer; the call then throws `.cancelled` and
    ///     the next call resumes.
    /// - Returns: what was done.
    /// - Throws: ``AssetPackError`` naming the file and the reason; the destination keeps its previous
    ///   complete state.
    @discardableResult
    public func installSynchronously(progress: (@Sendable (ExpansionProgress) -> Void)? = nil,
                                     cancellation: ExpansionCancellation? = nil) throws(AssetPackError) -> ExpansionResult {
        let started = SystemClock.monotonicSeconds()
        if let stamp = upToDateStamp() {
            return logged(ExpansionResult(destination: destination, upToDate: true, identity: stamp,
                                          seconds: SystemClock.monotonicSeconds() - started))
        }
        let madeFolders = try io(FileSystem.makeDirectories(parentPath))
        do {
            var result = try installLocked(progress: progress, cancellation: cancellation)
            result.seconds = SystemClock.monotonicSeconds() - started
            return logged(result)
        } catch {
            FileSystem.removeEmptyDirectories(madeFolders)  // see FailureCleanup
            throw error
        }
    }

    /// ``installSynchronously(progress:cancellation:)`` once the parent folder exists: under the lock, one transaction.
    private func installLocked(progress: (@Sendable (ExpansionProgress) -> Void)?,
                               cancellation: ExpansionCancellation?) throws(AssetPackError) -> ExpansionResult {
        try SourceOverlap.check(source, parent: parentPath, name: name, destination: destination)
        let parent = try io(Descriptor.directory(parentPath))
        let lock = try InstallLock(parent)
        defer { lock.release() }
        let tracker = ProgressTracker(callback: options.testSeam.kills ? killing(progress) : progress, cancellation: cancellation,
                                      log: log)
        return try InstallTransaction(installer: self, parent: parent, progress: tracker).run()
    }

    /// `progress`, after the test seam's kill points are checked (``InstallTestSeam``).
    private func killing(_ progress: (@Sendable (ExpansionProgress) -> Void)?) -> @Sendable (ExpansionProgress) -> Void {
        let seam = options.testSeam
        return { report in
            seam.killIfReached(report)
            progress?(report)
        }
    }
}
