import AssetPackSystem

/// One install under the lock: plan, prepare or resume staging, fill it, record it, switch it in, and
/// remove the previous tree. Each step leaves the destination either as it was or complete.
struct InstallTransaction {
    let installer: AssetInstaller
    let parent: Descriptor
    let progress: ProgressTracker
    /// Paths of the installed tree that differ from its record (``InstalledTreeCheck``): never linked, so
    /// they are written again, and the tree is rebuilt even when its stamp is the plan's (a repair).
    var repairing: Set<String> = []

    private var stagingName: String { StagingNames.staging(for: installer.name) }

    func run() throws(AssetPackError) -> ExpansionResult {
        progress.enter(.planning)
        let plan = try ExpansionPlanner.plan(installer.source, options: installer.options)
        try SourceCheck.notEmpty(plan, options: installer.options)
        let current = try currentTree()
        if let current, repairing.isEmpty, InstallRecord.stamp(of: current) == plan.stamp {
            try removeLeftovers()
            return ExpansionResult(destination: installer.destination, upToDate: true, identity: plan.stamp,
                                   files: plan.fileCount, bytes: plan.totalBytes)
        }
        let (staging, state) = try StagingArea.prepare(stagingName, in: parent, stamp: plan.stamp,
                                                      discarded: { progress.log(.stagingDiscarded(path: $0)) })
        var counts = Counts()
        do {
            if state != .complete {
                counts = try fill(staging, plan: plan, resuming: state == .resumable, current: current)
            } else {
                try flush(staging, plan: plan)  // completed by an earlier call, which may not have flushed it
            }
            try commit(staging, plan: plan)
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
    private func currentTree() throws(AssetPackError) -> Descriptor? {
        guard let status = try io(parent.status(installer.name)) else { return nil }
        guard status.kind == .directory else {
            throw AssetPackError(.invalidArgument, "the destination exists and is not a folder", path: installer.destination)
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
        try fill.makeDirectories()
        var counts = Counts(linked: linkable.count, resumed: kept.count)
        if let current, !linkable.isEmpty {
            let failed = try fill.linkUnchanged(linkable, from: current)
            counts.linked -= failed.count
            toWrite = (toWrite + failed).sorted()
        }
        try fill.writeFiles(toWrite)
        try fill.makeSymlinks()
        counts.bytesResumed = kept.keys.reduce(progress.bytesResumedInBlocks) { $0 + plan.items[$1].size }
        counts.bytesWritten = toWrite.reduce(0) { $0 + plan.items[$1].size } - progress.bytesResumedInBlocks
        BackupExclusion.apply(to: staging.path)
        try flush(staging, plan: plan)
        try fill.writeRecord(into: staging, durable: durable)
        return counts
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
        guard let current, var previous = InstallRecord.filesByPath(of: current) else { return [:] }
        for path in repairing { previous[path] = nil }
        return try UpgradeDiff(plan: plan).unchanged(in: current, previous: previous, excluding: present)
    }

    /// With ``Durability/flushOnCommit``, puts every file and folder of the staging tree on the device,
    /// and only those (``TreeFlush``). Called before the record that marks the tree complete is written,
    /// so a power loss can never leave a record over unwritten data.
    private func flush(_ staging: Descriptor, plan: ExpansionPlan) throws(AssetPackError) {
        guard durable else { return }
        progress.enter(.flushing)
        try TreeFlush.flush(plan, in: staging)
    }

    private var durable: Bool { installer.options.durability == .flushOnCommit }

    /// Makes the complete staging tree ready to switch: no marker (its record was written by ``fill``).
    private func commit(_ staging: Descriptor, plan: ExpansionPlan) throws(AssetPackError) {
        try StagingArea.removeMarker(from: staging)
        progress.enter(.committed)
    }

    /// Switches the staging tree in and removes the previous one.
    private func switchIn() throws(AssetPackError) {
        let previous = try AtomicSwitch.perform(staging: stagingName, destination: installer.name, in: parent)
        if durable { try io(parent.fd.sync(path: parent.path)) }
        progress.enter(.switched)
        if let previous { try io(TreeRemoval.remove(previous, in: parent)) }
        try removeLeftovers()
    }

    /// Removes a staging or previous tree left beside a complete destination by an interrupted call.
    private func removeLeftovers() throws(AssetPackError) {
        try io(TreeRemoval.remove(stagingName, in: parent))
        try io(TreeRemoval.remove(StagingNames.previous(for: installer.name), in: parent))
    }
}
