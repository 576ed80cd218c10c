import AssetPackSystem

/// The first install of a large bundle, planned and written a window of its manifest at a time
/// (``ManifestWindowPlanner``), so that its memory does not grow with the tree: at 1,000,000 files a
/// whole plan holds about 250 bytes a file.
///
/// Each window of ``windowItems`` items is written into the staging tree as a plan of its own
/// (``StagingFill``): free space checked for it, files written and verified, folders made, its lines added
/// to the record (``InstallRecordLists``) and, when durable, its files and folders flushed (with the
/// folders of earlier windows it wrote into). The manifest's identity is known to be intact only once it
/// is read to its end; the record and the stamp are written after that, so a forged or damaged manifest
/// ends like any bad input: the staging tree is removed and the destination is as it was.
///
/// Only a first install is expanded this way — nothing at the destination yet, no staging tree of an
/// earlier call, a bundle stored (not delivered) whose manifest is in path order and at least
/// ``windowedManifestBytes`` long. An upgrade (which links the unchanged files of the installed tree) and a
/// resumed install (which checks what an interrupted call left) plan the tree whole, and so does an install
/// whose manifest turns out to need it: entries out of order, or two names that may collide (then what was
/// written is removed and the whole plan decides and words the error).
extension InstallTransaction {
    /// The manifest size from which a first install goes a window at a time (about 100,000 entries; a
    /// packer entry takes about 300 bytes).
    static let windowedManifestBytes: UInt64 = 32 << 20
    /// Items in a window.
    static let windowItems = 16_384
    /// Bytes of manifest text per entry, to estimate a tree's files from its manifest's size.
    private static let manifestBytesPerEntry: UInt64 = 300

    /// Installs the bundle a window at a time when this install is one that can be (see the notes above);
    /// nil when it is not, or when the bundle turned out to need a whole plan (nothing of this call is then left).
    func runWindowed() throws(AssetPackError) -> ExpansionResult? {
        guard let (identity, windowSize, manifestBytes) = try windowedInstall() else { return nil }
        let stamp = ExpansionPlan.manifestStamp(identity)
        let (staging, _) = try StagingArea.prepare(stagingName, in: parent, stamp: stamp)
        let totals: WindowTotals
        do {
            guard let filled = try fillWindows(staging, identity: identity, windowSize: windowSize,
                                               estimatedFiles: Int(manifestBytes / Self.manifestBytesPerEntry)) else {
                try io(TreeRemoval.remove(stagingName, in: parent))
                progress.restart()
                return nil
            }
            totals = filled
            try commit(staging)
            try switchIn()
        } catch {
            FailureCleanup.afterFailure(error, staging: stagingName, in: parent, createdStaging: true)
            throw error
        }
        progress.enter(.done)
        return ExpansionResult(destination: installer.destination, upToDate: false, identity: stamp, files: totals.files,
                               bytes: totals.bytes, filesWritten: progress.snapshot.filesWritten, bytesWritten: totals.bytes,
                               filesLinked: 0, filesResumed: 0, bytesResumed: 0)
    }

    /// The stated identity, the window size and the manifest's size, when this install goes a window at a time.
    private func windowedInstall() throws(AssetPackError) -> (identity: String, windowSize: Int, manifestBytes: UInt64)? {
        guard repairing.isEmpty else { return nil }
        switch installer.source.storage {
        case .packedBundle, .delivered: return nil
        default: break
        }
        let sized = installer.source as? any SizedAssetSource
        guard let manifestBytes = try? sized?.size(of: AssetPath(BundleManifest.path)) else { return nil }
        let windowSize: Int
        if let forced = installer.options.testSeam.windowItems {
            windowSize = forced
        } else {
            guard manifestBytes >= Self.windowedManifestBytes else { return nil }
            windowSize = Self.windowItems
        }
        guard let identity = try BundleManifest.readIdentity(from: installer.source) else { return nil }
        // A first install: no tree at the destination (or an empty folder), no staging tree of an earlier call.
        if let current = try currentTree(), InstallRecord.stamp(of: current) != nil { return nil }
        guard try io(parent.status(stagingName)) == nil else { return nil }
        return (identity, windowSize, manifestBytes)
    }

    /// Writes the bundle into `staging` a window at a time, then its record and (durable) its stamp; nil
    /// when the bundle needs a whole plan.
    private func fillWindows(_ staging: Descriptor, identity: String, windowSize: Int,
                             estimatedFiles: Int) throws(AssetPackError) -> WindowTotals? {
        let record = try InstallRecordLists(tree: staging)
        let totals = WindowTotals()
        let handoff = WindowHandoff<ManifestWindowPlanner.Window> { (window) throws(AssetPackError) in
            try self.write(window, into: staging, record: record, totals: totals)
        }
        let planner = ManifestWindowPlanner(source: ResolvedSource(installer.source), options: installer.options, identity: identity,
                                            windowSize: windowSize) { (window) throws(AssetPackError) in try handoff.put(window) }
        // The windows are written on a thread of their own while the next is read and planned (WindowHandoff).
        let located = try EarlyWriteback.around(staging, files: estimatedFiles, durable: durable) { () throws(AssetPackError) in
            try WorkerThreads.withHelpers(1, helper: { _ in handoff.drain() }) { () throws(AssetPackError) in
                defer { handoff.close() }
                let located = try BundleManifest.locate(in: installer.source, into: planner)
                try planner.finish()
                try handoff.finish()
                return located
            }
        }
        guard let located, !planner.needsWholePlan, located.manifest.identity == identity,
              totals.files > 0 || installer.options.allowsEmpty else { return nil }
        BackupExclusion.apply(to: staging.path)
        try record.write(into: staging, source: SourceFingerprint.of(installer.source.storage, options: installer.options),
                         stamp: ExpansionPlan.manifestStamp(identity))
        if durable {
            progress.enter(.flushing)
            try TreeFlush.flushRecord(in: staging, also: (StagingNames.recordDirectory, InstallRecord.fileNames))
            try markFlushed(staging)
        }
        try InstallRecord.writeStamp(ExpansionPlan.manifestStamp(identity), into: staging, durable: durable)
        return totals
    }

    /// Writes one window: checks the free space for it, writes its files and folders, adds it to the record
    /// and, durable, flushes it.
    private func write(_ window: ManifestWindowPlanner.Window, into staging: Descriptor, record: InstallRecordLists,
                       totals: WindowTotals) throws(AssetPackError) {
        let plan = window.plan
        progress.grow(files: plan.fileCount, bytes: plan.totalBytes)
        let files = plan.items.indices.filter { plan.items[$0].kind == .file }
        let assumedFree = installer.options.testSeam.freeSpace.map { $0 - min($0, totals.bytes) }
        try SpacePreflight.check(sizes: files.map { plan.items[$0].size }, directories: plan.items.count - plan.fileCount,
                                 on: parent, destination: installer.destination, freeOverride: assumedFree)
        let fill = StagingFill(plan: plan, staging: staging, source: installer.source, progress: progress,
                               options: installer.options, kept: [:])
        try fill.writeFiles(files)
        try fill.folders.makeAll()
        try fill.makeSymlinks()
        try fill.addToRecord(record)
        if durable { try TreeFlush.flush(plan, in: staging, openFolders: window.openFolders) }
        totals.files += plan.fileCount
        totals.bytes += plan.totalBytes
    }
}

/// Files and bytes of the windows written so far.
private final class WindowTotals {
    var files = 0
    var bytes: UInt64 = 0
}
