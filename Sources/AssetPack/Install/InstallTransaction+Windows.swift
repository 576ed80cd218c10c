import AssetPackSystem

/// The first install of a large bundle or archive, planned and written a window at a time
/// (``ManifestWindowPlanner``, ``ArchiveWindowPlanner``), so that its memory does not grow with the tree:
/// at 1,000,000 files a whole plan holds about 250 bytes a file, and an archive's entries about 170 more.
///
/// Each window of ``windowItems`` items is written into the staging tree as a plan of its own
/// (``StagingFill``): free space checked for it, files written and verified, folders made, its lines added
/// to the record (``InstallRecordLists``) and, when durable, its files and folders flushed (with the
/// folders of earlier windows it wrote into) — or, where one `syncfs` is the cheaper flush, that `syncfs`
/// left to after the last window, so the writing never stops for it. A bundle's manifest is known to be intact only once it is
/// read to its end, and an archive's identity only once its last entry is planned; the record and the
/// stamp are written after that, so a forged or damaged manifest ends like any bad input: the staging tree
/// is removed and the destination is as it was.
///
/// A first install goes this way — nothing at the destination yet, no staging tree of an earlier call —
/// of a bundle stored (not delivered) whose manifest is at least ``windowedManifestBytes`` long, or of an
/// archive given as the source whose central directory is too large for it to hold
/// (``ZipLimits/maxHeldDirectoryBytes``, about 100,000 entries); and so does the upgrade of an installed
/// tree by such a bundle, when the tree's record lists its files in path order (as assetpack writes it):
/// each window's unchanged files are linked from the installed tree, the record walked beside the windows
/// with one cursor (``RecordedFiles``, ``UpgradeDiff``). The upgrade by an archive (whose identity is known
/// only at its end), a repair, and a resumed install (which checks what an interrupted call left) plan
/// the tree whole, and so does an install whose source turns out to need it (see the planners: entries
/// out of order, two names that may collide, a `.zip` file inside an archive); what was written is then
/// removed and the whole plan decides and words any error. A windowed archive install that is interrupted
/// is started over by the next call, a window at a time again, not resumed: its staging tree is marked with
/// no stamp (``unknownStamp``), since what it wrote is not known to be the archive's until its end.
extension InstallTransaction {
    /// The manifest size from which a first install goes a window at a time (about 100,000 entries; a
    /// packer entry takes about 300 bytes).
    static let windowedManifestBytes: UInt64 = 32 << 20
    /// Items in a window.
    static let windowItems = 16_384
    /// Bytes of manifest text per entry, to estimate a tree's files from its manifest's size.
    private static let manifestBytesPerEntry: UInt64 = 300
    /// The staging marker of a windowed archive install, whose stamp is known only at its end: a staging
    /// tree marked so is never resumed.
    private static let unknownStamp = "windowed-archive"

    /// What a windowed install goes through.
    private enum WindowedSource {
        /// A bundle whose identity file states `identity`.
        case manifest(identity: String)
        /// The archive given as the source.
        case archive
    }

    /// Installs the tree a window at a time when this install is one that can be (see the notes above);
    /// nil when it is not, or when the source turned out to need a whole plan (nothing of this call is then left).
    func runWindowed() throws(AssetPackError) -> ExpansionResult? {
        guard let (windowed, windowSize, estimatedFiles, restarts, upgrade) = try windowedInstall() else { return nil }
        let marker: String
        switch windowed {
        case .manifest(let identity): marker = ExpansionPlan.manifestStamp(identity)
        case .archive: marker = Self.unknownStamp
        }
        if restarts {
            // An interrupted windowed install of an archive: what it wrote is not known to be this archive's.
            try StagingArea.discard(stagingName, in: parent) { progress.log(.stagingDiscarded(path: $0)) }
        }
        let (staging, _) = try StagingArea.prepare(stagingName, in: parent, stamp: marker)
        let filled: (totals: WindowTotals, stamp: String)
        do {
            guard let done = try fillWindows(staging, from: windowed, windowSize: windowSize, estimatedFiles: estimatedFiles,
                                             upgrade: upgrade) else {
                try io(TreeRemoval.remove(stagingName, in: parent))
                progress.restart()
                return nil
            }
            filled = done
            try commit(staging)
            try switchIn()
        } catch {
            FailureCleanup.afterFailure(error, staging: stagingName, in: parent, createdStaging: true)
            throw error
        }
        progress.enter(.done)
        let totals = filled.totals
        return ExpansionResult(destination: installer.destination, upToDate: false, identity: filled.stamp, files: totals.files,
                               bytes: totals.bytes, filesWritten: progress.snapshot.filesWritten, bytesWritten: totals.bytesWritten,
                               filesLinked: upgrade?.linked ?? 0, filesResumed: 0, bytesResumed: 0)
    }

    /// What the install goes through, the window size, the tree's estimated files, and whether it starts over
    /// an interrupted windowed archive install (whose staging tree is there), when this install goes a
    /// window at a time.
    private func windowedInstall() throws(AssetPackError)
        -> (WindowedSource, windowSize: Int, estimatedFiles: Int, restarts: Bool, upgrade: WindowedUpgrade?)? {
        guard repairing.isEmpty else { return nil }
        let forced = installer.options.testSeam.windowItems
        let windowed: WindowedSource, estimatedFiles: Int
        switch installer.source.storage {
        case .packedBundle, .delivered: return nil
        default: break
        }
        let sized = installer.source as? any SizedAssetSource
        if let manifestBytes = try? sized?.size(of: AssetPath(BundleManifest.path)) {
            guard forced != nil || manifestBytes >= Self.windowedManifestBytes,
                  let identity = try BundleManifest.readIdentity(from: installer.source) else { return nil }
            windowed = .manifest(identity: identity)
            estimatedFiles = Int(manifestBytes / Self.manifestBytesPerEntry)
        } else if case .archive(let archive, _) = installer.source.storage {
            // A root that is not in the archive plans nothing here: the whole plan then words it. A bundle of
            // the first format (`.assetpack/` at its top) is planned whole, from its manifest, and so is an
            // archive whose identity file cannot be read (the whole plan words why).
            guard forced != nil || !archive.holdsEntries, !installer.options.testSeam.walksArchives,
                  case .some(.none) = try? BundleManifest.readIdentity(from: installer.source) else { return nil }
            windowed = .archive
            estimatedFiles = archive.entryCount
        } else {
            return nil
        }
        // A first install (no tree at the destination, or an empty folder), or the upgrade of a tree whose record
        // is in path order by a bundle; no staging tree of an earlier call but one of a windowed archive
        // install, which is started over (runWindowed).
        var upgrade: WindowedUpgrade?
        if let current = try currentTree(), InstallRecord.stamp(of: current) != nil {
            guard case .manifest = windowed, let recorded = RecordedFiles.read(of: current) else { return nil }
            upgrade = WindowedUpgrade(tree: current, recorded: recorded, wasFlushed: Self.wasFlushed(current))
        }
        let restarts = try io(parent.status(stagingName)) != nil
        if restarts {
            guard case .archive = windowed, StagingArea.marker(of: stagingName, in: parent) == Self.unknownStamp else { return nil }
        }
        return (windowed, forced ?? Self.windowItems, estimatedFiles, restarts, upgrade)
    }

    /// Writes the tree into `staging` a window at a time, then its record and (durable) its stamp; returns
    /// the totals and the stamp, or nil when the source needs a whole plan.
    private func fillWindows(_ staging: Descriptor, from windowed: WindowedSource, windowSize: Int, estimatedFiles: Int,
                             upgrade: WindowedUpgrade?) throws(AssetPackError) -> (totals: WindowTotals, stamp: String)? {
        let record = try InstallRecordLists(tree: staging)
        let totals = WindowTotals()
        let handoff = WindowHandoff<PlanWindow> { (window) throws(AssetPackError) in
            try self.write(window, into: staging, record: record, totals: totals, upgrade: upgrade)
        }
        // The windows are written on a thread of their own while the next is read and planned (WindowHandoff).
        let stamp = try EarlyWriteback.around(staging, files: estimatedFiles, durable: durable) { () throws(AssetPackError) in
            try WorkerThreads.withHelpers(1, helper: { _ in handoff.drain() }) { () throws(AssetPackError) -> String? in
                defer { handoff.close() }
                let stamp = try plan(windowed, windowSize: windowSize) { (window) throws(AssetPackError) in try handoff.put(window) }
                try handoff.finish()
                return stamp
            }
        }
        guard let stamp, totals.files > 0 || installer.options.allowsEmpty else { return nil }
        if totals.owesFileSystemFlush { try io(staging.fd.syncFileSystem(path: staging.path)) }
        BackupExclusion.apply(to: staging.path)
        try record.write(into: staging, source: SourceFingerprint.of(installer.source.storage, options: installer.options),
                         stamp: stamp)
        if durable {
            progress.enter(.flushing)
            try TreeFlush.flushRecord(in: staging, also: (StagingNames.recordDirectory, InstallRecord.fileNames))
            try markFlushed(staging)
        }
        try InstallRecord.writeStamp(stamp, into: staging, durable: durable)
        return (totals, stamp)
    }

    /// Plans the source a window at a time, handing each to `handOver`; returns the tree's stamp, or nil
    /// when it needs a whole plan.
    private func plan(_ windowed: WindowedSource, windowSize: Int,
                      handOver: @escaping (PlanWindow) throws(AssetPackError) -> Void) throws(AssetPackError) -> String? {
        let source = ResolvedSource(installer.source)
        switch windowed {
        case .manifest(let identity):
            let planner = ManifestWindowPlanner(source: source, options: installer.options, identity: identity,
                                                windowSize: windowSize, handOver: handOver)
            let located = try BundleManifest.locate(in: installer.source, into: planner)
            try planner.finish()
            guard let located, !planner.needsWholePlan, located.manifest.identity == identity else { return nil }
            return ExpansionPlan.manifestStamp(identity)
        case .archive:
            let planner = ArchiveWindowPlanner(source: source, options: installer.options, windowSize: windowSize)
            return try planner.run(handOver: handOver).map { ExpansionPlan.treeStamp($0, options: installer.options) }
        }
    }

    /// Writes one window: checks the free space for it, writes its files and folders, adds it to the record
    /// and, durable, flushes it.
    private func write(_ window: PlanWindow, into staging: Descriptor, record: InstallRecordLists,
                       totals: WindowTotals, upgrade: WindowedUpgrade?) throws(AssetPackError) {
        let plan = window.plan
        progress.grow(files: plan.fileCount, bytes: plan.totalBytes)
        let unchanged = try upgrade?.unchangedFiles(of: plan) ?? [:]
        var files = plan.items.indices.filter { plan.items[$0].kind == .file && unchanged[$0] == nil }
        let assumedFree = installer.options.testSeam.freeSpace.map { $0 - min($0, totals.bytesWritten) }
        try SpacePreflight.check(sizes: files.map { plan.items[$0].size }, directories: plan.items.count - plan.fileCount,
                                 on: parent, destination: installer.destination, freeOverride: assumedFree)
        let fill = StagingFill(plan: plan, staging: staging, source: installer.source, progress: progress,
                               options: installer.options, kept: [:])
        var onDevice: Set<Int> = []
        if let upgrade, !unchanged.isEmpty {
            let failed = try fill.linkUnchanged(unchanged, from: upgrade.tree)
            files = (files + failed).sorted()
            let linked = Set(unchanged.keys).subtracting(failed)
            upgrade.linked += linked.count
            if upgrade.wasFlushed { onDevice = linked }
        }
        try fill.writeFiles(files)
        try fill.folders.makeAll()
        try fill.makeSymlinks()
        try fill.addToRecord(record)
        if durable, try TreeFlush.flushUnlessWholeFileSystem(plan, in: staging, wholeFileSystem: installer.options.testSeam.flushesWholeFileSystem,
                                                              skipping: onDevice, openFolders: window.openFolders) {
            totals.owesFileSystemFlush = true
        }
        totals.files += plan.fileCount
        totals.bytes += plan.totalBytes
        totals.bytesWritten += files.reduce(0) { $0 + plan.items[$1].size }
    }
}

/// Files and bytes of the windows written so far, and whether one of them left its flush to a `syncfs`
/// after the last window.
private final class WindowTotals {
    var files = 0
    var bytes: UInt64 = 0
    /// Bytes of the files written (not linked from the installed tree).
    var bytesWritten: UInt64 = 0
    var owesFileSystemFlush = false
}

/// The installed tree a windowed upgrade links its unchanged files from, and its record, walked beside the
/// windows in path order (one cursor, carried from window to window: ``UpgradeDiff``).
private final class WindowedUpgrade {
    let tree: Descriptor
    let recorded: RecordedFiles
    /// True when the installed tree was flushed when it was installed: its linked files need no flush.
    let wasFlushed: Bool
    /// The record's next file to compare.
    private var cursor = 0
    /// Files linked so far.
    var linked = 0

    init(tree: Descriptor, recorded: RecordedFiles, wasFlushed: Bool) {
        self.tree = tree
        self.recorded = recorded
        self.wasFlushed = wasFlushed
    }

    /// The files of the window `plan` the installed tree holds unchanged (CRCs by item index).
    func unchangedFiles(of plan: ExpansionPlan) throws(AssetPackError) -> [Int: UInt32] {
        try UpgradeDiff(plan: plan).unchanged(in: tree, recorded: recorded, from: &cursor)
    }
}
