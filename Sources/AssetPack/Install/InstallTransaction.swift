import AssetPackSystem

/// One install under the lock: plan, prepare or resume staging, fill it, record it, switch it in, and
/// remove the previous tree. Each step leaves the destination either as it was or complete.
///
/// The install of a delivered bundle (a bundle on a server) leaves the previous tree under its aside name
/// (``StagingNames/previous(for:)``) when it returns, for the next call for that destination to remove:
/// removing a tree can cost as much as building the new one (each freed block may be a discard the device
/// waits for), and an app waits for its update. The next install removes it on a thread of its own while it
/// plans, fetches and writes (never later than its switch), and the next up-to-date check of a remote bundle
/// under the install lock (`AssetInstaller.upToDateResult(identity:destination:)`); a local call removes it
/// with its other leftovers. A tree under the aside name is never used again, so a removal cut short by a
/// kill only leaves more of it for the next call.
struct InstallTransaction {
    let installer: AssetInstaller
    let parent: Descriptor
    let progress: ProgressTracker
    /// Paths of the installed tree that differ from its record (``InstalledTreeCheck``): never linked, so
    /// they are written again, and the tree is rebuilt even when its stamp is the plan's (a repair).
    var repairing: Set<String> = []

    var stagingName: String { StagingNames.staging(for: installer.name) }

    func run() throws(AssetPackError) -> ExpansionResult {
        progress.enter(.planning)
        if let result = try runWindowed() { return result }
        let plan = try ExpansionPlanner.plan(installer.source, options: installer.options)
        try SourceCheck.notEmpty(plan, options: installer.options)
        let current = try currentTree()
        if let current, repairing.isEmpty, InstallRecord.stamp(of: current) == plan.stamp {
            try removeLeftovers()
            return ExpansionResult(destination: installer.destination, upToDate: true, identity: plan.stamp,
                                   files: plan.fileCount, bytes: plan.totalBytes)
        }
        // A previous tree beside a complete destination is an earlier call's leftover: removed while this one works.
        let complete = current.flatMap { InstallRecord.stamp(of: $0) } != nil
        let retired = complete ? RetiredTreeRemoval(StagingNames.previous(for: installer.name), in: parent) : nil
        let (staging, state) = try StagingArea.prepare(stagingName, in: parent, stamp: plan.stamp,
                                                      discarded: { progress.log(.stagingDiscarded(path: $0)) })
        var counts = Counts()
        do {
            // The removal's thread is joined before the switch, which needs the aside name.
            try WorkerThreads.withHelpers(retired == nil ? 0 : 1, helper: { _ in retired?.run() }) { () throws(AssetPackError) in
                if state != .complete {
                    counts = try fill(staging, plan: plan, resuming: state == .resumable, current: current)
                } else {
                    try flush(staging, plan: plan)  // completed by an earlier call, which may not have flushed it
                }
                try commit(staging)
            }
            try retired?.check()
            try switchIn()
        } catch {
            FailureCleanup.afterFailure(error, staging: stagingName, in: parent, createdStaging: state == .fresh)
            throw error
        }
        progress.enter(.done)
        let done = progress.snapshot
        return ExpansionResult(destination: installer.destination, upToDate: false, identity: plan.stamp,
                               files: plan.fileCount, bytes: plan.totalBytes, filesWritten: done.filesWritten,
                               bytesWritten: counts.bytesWritten, filesLinked: counts.linked, filesResumed: counts.resumed,
                               bytesResumed: counts.bytesResumed)
    }

    private struct Counts {
        var linked = 0, resumed = 0
        var bytesWritten: UInt64 = 0, bytesResumed: UInt64 = 0
    }

    /// The installed tree, or nil. Refuses to replace a non-empty folder that assetpack did not make.
    func currentTree() throws(AssetPackError) -> Descriptor? {
        guard let status = try io(parent.status(installer.name)) else { return nil }
        guard status.kind == .directory else {
            let reason = status.kind == .symlink
                ? "the destination is a symbolic link; give the folder itself (assetpack replaces a destination with one "
                    + "rename, which would replace the link, not the folder it points to)"
                : "the destination exists and is not a folder"
            throw AssetPackError(.invalidArgument, reason, path: installer.destination)
        }
        let tree = try io(parent.directory(installer.name))
        if InstallRecord.stamp(of: tree) == nil, try !io(tree.names()).isEmpty {
            throw AssetPackError(.invalidArgument, "the destination is a folder that assetpack did not create and it is not empty; "
                                 + "refusing to replace it", path: installer.destination)
        }
        return tree
    }

    /// Resumes or starts the staging tree and writes every missing file, then the record.
    private func fill(_ staging: Descriptor, plan: ExpansionPlan, resuming: Bool,
                      current: Descriptor?) throws(AssetPackError) -> Counts {
        let left = try resume(staging, plan: plan, resuming: resuming)
        let kept = left.kept
        let linkable = try unchangedFiles(in: current, plan: plan, excluding: Set(kept.keys).union(left.partial.keys))
        var toWrite = plan.items.indices.filter { plan.items[$0].kind == .file && kept[$0] == nil && linkable[$0] == nil }
        try SpacePreflight.check(sizes: toWrite.map { plan.items[$0].size }, directories: plan.items.count - plan.fileCount,
                                 on: parent, destination: installer.destination, freeOverride: installer.options.testSeam.freeSpace)
        let fill = StagingFill(plan: plan, staging: staging, source: installer.source, progress: progress,
                               options: installer.options, kept: kept, partial: left.partial)
        var counts = Counts(linked: linkable.count, resumed: kept.count)
        var onDevice: Set<Int> = []
        if let current, !linkable.isEmpty {
            let failed = try fill.linkUnchanged(linkable, from: current)
            counts.linked -= failed.count
            toWrite = (toWrite + failed).sorted()
            if durable, Self.wasFlushed(current) { onDevice = Set(linkable.keys).subtracting(failed) }
        }
        try EarlyWriteback.around(staging, files: toWrite.count, durable: durable) { () throws(AssetPackError) in
            try fill.writeFiles(toWrite)
        }
        try fill.folders.makeAll()
        try fill.makeSymlinks()
        counts.bytesResumed = kept.keys.reduce(progress.bytesResumedInBlocks) { $0 + plan.items[$1].size }
        counts.bytesWritten = toWrite.reduce(0) { $0 + plan.items[$1].size } - progress.bytesResumedInBlocks
        BackupExclusion.apply(to: staging.path)
        try fill.writeRecordContents(into: staging)  // flushed with the tree
        try flush(staging, plan: plan, skipping: onDevice)
        if durable { try markFlushed(staging) }
        try InstallRecord.writeStamp(plan.stamp, into: staging, durable: durable)
        return counts
    }

    /// True when `tree`'s record says its files were on the device before the record was written
    /// (``StagingNames/flushedMarkerFile``): an upgrade links its unchanged files without flushing them again.
    static func wasFlushed(_ tree: Descriptor) -> Bool {
        guard let folder = try? tree.directory(StagingNames.recordDirectory) else { return false }
        return (try? folder.status(StagingNames.flushedMarkerFile))??.kind == .file
    }

    /// Writes ``StagingNames/flushedMarkerFile`` into the record folder of the flushed staging tree; the record's
    /// durable write that follows puts it on the device with the stamp.
    func markFlushed(_ staging: Descriptor) throws(AssetPackError) {
        let folder = try io(staging.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        try SmallFiles.write([], to: StagingNames.flushedMarkerFile, in: folder, durable: false)
    }

    /// What an interrupted run left in staging: verified files (counted as done) and unfinished
    /// block-indexed files to continue.
    private func resume(_ staging: Descriptor, plan: ExpansionPlan, resuming: Bool) throws(AssetPackError) -> StagingPruner.Outcome {
        let left = resuming ? try StagingPruner(root: staging, plan: plan).prune() : StagingPruner.Outcome()
        progress.start(files: plan.fileCount, bytes: plan.totalBytes)
        for position in left.kept.keys.sorted() {
            progress.finished(plan.items[position].path, extraBytes: plan.items[position].size, written: false)
        }
        return left
    }

    /// Files of the installed tree that the plan keeps unchanged (CRCs by item index).
    private func unchangedFiles(in current: Descriptor?, plan: ExpansionPlan,
                                excluding present: Set<Int>) throws(AssetPackError) -> [Int: UInt32] {
        guard let current else { return [:] }
        return try UpgradeDiff(plan: plan).unchanged(in: current, repairing: repairing, excluding: present)
    }

    /// With ``Durability/flushOnCommit``, puts every file and folder of the staging tree on the device,
    /// and only those (``TreeFlush``), with the record's files that are there (its contents, written just
    /// before; and the stamp of a tree an earlier call completed, perhaps without flushing). Called before the
    /// stamp that marks the tree complete is written, so a power loss can never leave a stamp over unwritten
    /// data or an unwritten record. `skipping`: files already on the device (linked from an installed tree
    /// that was flushed when it was installed): their data are there, and the new names are put there by the
    /// flushes of their folders.
    private func flush(_ staging: Descriptor, plan: ExpansionPlan, skipping: Set<Int> = []) throws(AssetPackError) {
        guard durable else { return }
        progress.enter(.flushing)
        try TreeFlush.flush(plan, in: staging, wholeFileSystem: installer.options.testSeam.flushesWholeFileSystem, skipping: skipping,
                            also: (StagingNames.recordDirectory, InstallRecord.fileNames))
    }

    var durable: Bool { installer.options.durability == .flushOnCommit }

    /// Makes the complete staging tree ready to switch: no marker (its record was written by ``fill``).
    func commit(_ staging: Descriptor) throws(AssetPackError) {
        try StagingArea.removeMarker(from: staging)
        progress.enter(.committed)
    }

    /// Switches the staging tree in and removes the previous one (a delivered bundle's is left for the next call).
    func switchIn() throws(AssetPackError) {
        let previous = try AtomicSwitch.perform(staging: stagingName, destination: installer.name, in: parent)
        if durable { try io(parent.fd.sync(path: parent.path)) }
        progress.enter(.switched)
        if leavesPreviousTree { return try io(TreeRemoval.remove(stagingName, in: parent)) }
        if let previous { try AtomicSwitch.removePrevious(previous, in: parent) }
        try removeLeftovers()
    }

    /// True for a delivered bundle, whose previous tree is left for the next call to remove (see the type's notes).
    private var leavesPreviousTree: Bool {
        if case .delivered = installer.source.storage { return true }
        return false
    }

    /// Removes a staging or previous tree left beside a complete destination by an interrupted call.
    private func removeLeftovers() throws(AssetPackError) {
        try io(TreeRemoval.remove(stagingName, in: parent))
        try AtomicSwitch.removePrevious(StagingNames.previous(for: installer.name), in: parent)
    }
}

/// The removal of a previous tree an earlier call left beside the destination, run on a helper thread of
/// ``WorkerThreads/withHelpers(_:helper:_:)`` so that it overlaps the install's own work; ``check()``, after
/// the helper is joined, throws what the removal threw.
private final class RetiredTreeRemoval: @unchecked Sendable {
    private let name: String
    private let parent: Descriptor
    /// Written by the helper thread, read once it has been joined.
    private var failure: AssetPackError?

    /// The removal of `name` in `parent`; nil (nothing to remove) when there is no such entry.
    init?(_ name: String, in parent: Descriptor) {
        guard (try? parent.status(name)) ?? nil != nil else { return nil }
        self.name = name
        self.parent = parent
    }

    /// Removes the tree (on the helper thread).
    func run() {
        do throws(AssetPackError) {
            try AtomicSwitch.removePrevious(name, in: parent)
        } catch {
            failure = error
        }
    }

    /// Throws what ``run()`` threw.
    func check() throws(AssetPackError) {
        if let failure { throw failure }
    }
}
