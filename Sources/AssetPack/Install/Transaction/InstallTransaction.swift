import AssetPackSystem

/// One install under the lock: plan, prepare or resume staging, fill it a window at a time, record it,
/// switch it in, and remove the previous tree. Each step leaves the destination either as it was or complete.
///
/// The plan comes as windows (``PlanWindow``: a whole plan is one window), each written into staging as
/// a plan of its own (``write(_:into:state:)``) on a thread of its own while the next is planned
/// (``WindowHandoff``); the steps are in the article InstallPipeline. The record and the stamp come after
/// the last window: only then is a manifest known intact, so a forged one ends like any bad input.
///
/// A delivered bundle's install leaves the previous tree under its aside name
/// (``StagingNames/previous(for:)``) for the next call to remove, on a helper thread while it works:
/// removing a tree can cost as much as building the new one, and an app waits for its update.
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
        // An upgrade in place an earlier call began left the destination a mix of two versions: finished first.
        if InPlaceUpgrade.isPending(installer.name, in: parent) { try inPlaceUpgrade().apply() }
        let current = try currentTree()
        let stagingExists = try io(parent.status(stagingName)) != nil
        var planning = try InstallPlanning.choose(installer, needsStampFirst: current != nil || stagingExists)
        var createdStaging = false
        while true {
            if let result = try upToDate(planning, current: current) { return result }
            if let result = try install(planning, current: current, createdStaging: &createdStaging) { return result }
            // The source needs a whole plan: what was written stays in staging, checked again as it is resumed,
            // unless the whole plan refuses the source.
            progress.restart()
            progress.enter(.planning)
            do {
                planning = try InstallPlanning.whole(installer)
            } catch {
                FailureCleanup.afterFailure(error, staging: stagingName, in: parent, createdStaging: createdStaging)
                throw error
            }
        }
    }

    /// The result for an installed tree that already has the stamp `planning` gives, or nil.
    private func upToDate(_ planning: InstallPlanning, current: Descriptor?) throws(AssetPackError) -> ExpansionResult? {
        guard let current, repairing.isEmpty, let stamp = planning.stamp, InstallRecord.stamp(of: current) == stamp else { return nil }
        try removeLeftovers()
        guard case .whole(let plan) = planning.way else {
            return ExpansionResult(destination: installer.destination, upToDate: true, identity: stamp)
        }
        return ExpansionResult(destination: installer.destination, upToDate: true, identity: stamp, files: plan.fileCount,
                               bytes: plan.totalBytes)
    }

    /// Builds the tree `planning` gives in staging and switches it in; nil when the source turned out to need
    /// a whole plan. `createdStaging` becomes true when this call made the staging tree (not an earlier call).
    private func install(_ planning: InstallPlanning, current: Descriptor?,
                         createdStaging: inout Bool) throws(AssetPackError) -> ExpansionResult? {
        // A previous tree beside a complete destination is an earlier call's leftover: removed while this one works.
        let complete = current.map(Self.isInstalled) ?? false
        let retired = complete ? RetiredTreeRemoval(StagingNames.previous(for: installer.name), in: parent) : nil
        let (staging, state) = try StagingArea.prepare(stagingName, in: parent, stamp: planning.stamp, marker: planning.marker,
                                                      discarded: { progress.log(.stagingDiscarded(path: $0)) })
        if state == .fresh { createdStaging = true }
        let inPlace = complete && installer.options.upgradesInPlace
        var filled: WindowState?
        let begun: WindowState
        do {
            // The removal's thread is joined before the switch, which needs the aside name.
            try WorkerThreads.withHelpers(retired == nil ? 0 : 1, helper: { _ in retired?.run() }) { () throws(AssetPackError) in
                filled = try fill(staging, planning: planning, resuming: state == .resumable, current: complete ? current : nil,
                                  inPlace: inPlace)
                if filled != nil { try commit(staging) }
            }
            try retired?.check()
            guard let filled else { return nil }
            guard inPlace else {
                try switchIn()
                progress.enter(.done)
                return result(filled, stamp: filled.stamp ?? "")
            }
            try InPlaceUpgrade.begin(staging, removing: installer.options.removesUnknownEntries ? filled.unknownFound : [], durable: durable)
            begun = filled
        } catch {
            FailureCleanup.afterFailure(error, staging: stagingName, in: parent, createdStaging: createdStaging)
            throw error
        }
        // Begun: whatever ends this call, the staging tree stays for the next call to finish the upgrade.
        try inPlaceUpgrade().apply()
        progress.enter(.switched)
        progress.enter(.done)
        return result(begun, stamp: begun.stamp ?? "")
    }

    /// The upgrade in place of the destination, begun by this call or an earlier one.
    private func inPlaceUpgrade() -> InPlaceUpgrade {
        InPlaceUpgrade(parent: parent, name: installer.name, durable: durable,
                       killAfter: installer.options.testSeam.killAfterAppliedEntries)
    }

    private func result(_ filled: WindowState, stamp: String) -> ExpansionResult {
        let inBlocks = progress.bytesResumedInBlocks
        var result = ExpansionResult(destination: installer.destination, upToDate: false, identity: stamp, files: filled.files,
                                     bytes: filled.bytes, filesWritten: progress.snapshot.filesWritten,
                                     bytesWritten: filled.bytesWritten - min(filled.bytesWritten, inBlocks),
                                     filesLinked: filled.linked, filesResumed: filled.resumed,
                                     bytesResumed: filled.bytesResumed + inBlocks)
        if installer.options.removesUnknownEntries { result.unknownDeleted = filled.unknown } else { result.unknownKept = filled.unknown }
        return result
    }

    /// True when `tree` holds an install, as its record proves (an install whose identity file was lost is still
    /// upgraded from its record, its unknown entries carried over; an identity file without a record proves nothing).
    private static func isInstalled(_ tree: Descriptor) -> Bool {
        InstallRecord.recordFile(of: tree) != nil
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
        if !Self.isInstalled(tree), try !io(tree.names()).isEmpty {
            let identityOnly = (try? tree.directory(StagingNames.recordDirectory))
                .flatMap { try? $0.status(StagingNames.stampFile) }?.kind == .file
            throw AssetPackError(.invalidArgument, identityOnly
                ? "the destination holds an install identity but no install record (.assetpack/installed.json.gz), so nothing "
                    + "proves it is assetpack's; refusing to replace it (remove it to install afresh)"
                : "the destination is a folder that assetpack did not create and it is not empty; refusing to replace it",
                                 path: installer.destination)
        }
        return tree
    }

    /// Writes the tree into `staging` a window at a time, then its record and (durable) its stamp; nil when
    /// the source needs a whole plan. `current`: the complete installed tree, whose unchanged files are linked
    /// (`inPlace`: left where they are, only what changed is staged).
    private func fill(_ staging: Descriptor, planning: InstallPlanning, resuming: Bool,
                      current: Descriptor?, inPlace: Bool) throws(AssetPackError) -> WindowState? {
        if resuming { try forgetCompletion(of: staging, inPlace: inPlace) }
        let upgrade = current.map { WindowState.Upgrade(tree: $0, recorded: RecordCursor(tree: $0), wasFlushed: Self.wasFlushed($0)) }
        let layout = StagingLayout(inPlace: inPlace)
        let state = WindowState(upgrade: upgrade, resume: resuming ? try ResumeCheck(root: staging, layout: layout) : nil, inPlace: inPlace)
        let record = try InstallRecordLists(tree: staging, layout: layout)
        let handoff = WindowHandoff<PlanWindow> { (window) throws(AssetPackError) in
            try self.write(window, into: staging, state: state, record: record)
        }
        let files = planning.estimatedFiles
        let stamp = try EarlyWriteback.around(staging, files: files, durable: durable) { () throws(AssetPackError) in
            try WorkerThreads.withHelpers(1, helper: { _ in handoff.drain() }) { () throws(AssetPackError) -> String? in
                defer { handoff.close() }
                let stamp = try planning.run { (window) throws(AssetPackError) in try handoff.put(window) }
                try handoff.finish()
                return stamp
            }
        }
        guard let stamp, state.files > 0 || installer.options.allowsEmpty else { return nil }
        state.stamp = stamp
        // Planned: a delivered bundle's spooled manifest is not read again, and must not be flushed with the tree.
        if case .delivered(let bundle) = installer.source.storage { bundle.discardManifest() }
        try state.resume?.sweep()
        if let upgrade = state.upgrade {
            let entries = UnknownEntries(installed: upgrade.tree, staging: staging, removes: installer.options.removesUnknownEntries)
            if inPlace {
                // Unknown entries stay where they are: only found (and, when asked, removed by the upgrade).
                state.unknownFound = try entries.find()
                state.unknown = UnknownEntries.listed(state.unknownFound)
            } else {
                state.unknown = try entries.carry()
            }
        }
        BackupExclusion.apply(to: staging.path)
        // Before the flush: the record's lists gathered in temporary files are removed by then, never written back.
        try record.write(into: staging, source: SourceFingerprint.of(installer.source.storage, options: installer.options),
                         stamp: stamp)
        if inPlace, let upgrade = state.upgrade, !installer.options.removesUnknownEntries {
            try InPlaceUpgrade.checkConflicts(state.unknown, newRecordIn: staging, installed: upgrade.tree)
        }
        if inPlace {
            // Not flushed yet: the one `syncfs` that begins the upgrade (``InPlaceUpgrade/begin(_:removing:durable:)``)
            // puts the staged files, the record, the stamp and the marker on the device together.
            if durable { try markFlushed(staging) }
            try InstallRecord.writeStamp(stamp, into: staging, durable: false)
            return state
        }
        if state.owesFileSystemFlush { try io(staging.fd.syncFileSystem(path: staging.path)) }
        if durable {
            progress.enter(.flushing)
            try TreeFlush.flushRecord(in: staging, also: (StagingNames.recordDirectory, InstallRecord.fileNames))
            try markFlushed(staging)
        }
        try InstallRecord.writeStamp(stamp, into: staging, durable: durable)
        return state
    }

    /// Writes one window: checks what an interrupted call left at its paths, links its unchanged files from
    /// the installed tree, checks the free space for the rest, writes them and its folders and links, adds it
    /// to the record and, durable, flushes it.
    private func write(_ window: PlanWindow, into staging: Descriptor, state: WindowState,
                       record: InstallRecordLists) throws(AssetPackError) {
        let plan = window.plan
        progress.grow(files: plan.fileCount, bytes: plan.totalBytes)
        let left = try state.resume?.check(plan) ?? ResumeCheck.Outcome()
        for position in left.kept.keys.sorted() {
            progress.finished(plan.items[position].path, extraBytes: plan.items[position].size, written: false)
        }
        let (unchanged, moved, toWrite) = try UpgradeDiff.split(plan, installed: state.upgrade?.tree, recorded: state.upgrade?.recorded,
                                                                left: left, repairing: repairing)
        var files = toWrite
        let assumedFree = installer.options.testSeam.freeSpace.map { $0 - min($0, state.bytesWritten) }
        try SpacePreflight.check(sizes: files.map { plan.items[$0].size }, directories: plan.items.count - plan.fileCount,
                                 on: parent, destination: installer.destination, freeOverride: assumedFree)
        // In place, the files unchanged at their paths stay where they are; the renamed and moved ones are linked,
        // and the others written, into one flat folder (``StagingLayout/flat``): only the folders above the links
        // are made in staging.
        var inPlace: [Int: StagedFile] = [:], toLink = unchanged
        if state.inPlace, let upgrade = state.upgrade {
            inPlace = unchanged.filter { moved[$0.key] == nil }
            let (linked, failed) = try InPlaceUpgrade.stageMoved(unchanged.filter { moved[$0.key] != nil }, of: plan, from: upgrade.tree,
                                                                 movedFrom: moved, into: staging)
            inPlace.merge(linked) { first, _ in first }
            files = (files + failed).sorted()
            toLink = [:]
        }
        let links = state.inPlace ? plan.items.indices.filter { plan.items[$0].kind == .symlink } : nil
        let fill = StagingFill(plan: plan, staging: staging, source: installer.source, progress: progress,
                               options: installer.options, kept: left.kept, partial: left.partial, foldersAbove: links,
                               layout: state.layout)
        fill.keepInPlace(inPlace)
        state.linked += inPlace.count
        var onDevice: Set<Int> = []
        if let upgrade = state.upgrade, !toLink.isEmpty {
            let failed = try fill.linkUnchanged(toLink, from: upgrade.tree, movedFrom: moved)
            files = (files + failed).sorted()
            let linked = Set(unchanged.keys).subtracting(failed)
            state.linked += linked.count
            if upgrade.wasFlushed { onDevice = linked }
        }
        try fill.writeFiles(files)
        try fill.folders.makeAll()
        try fill.makeSymlinks()
        try fill.addToRecord(record)
        // In place, the staging tree holds only what changed: one `syncfs` flushes it as the upgrade begins.
        let wholeFileSystem = installer.options.testSeam.flushesWholeFileSystem
        if durable, !state.inPlace, try TreeFlush.flushUnlessWholeFileSystem(plan, in: staging, wholeFileSystem: wholeFileSystem,
                                                                             skipping: onDevice, openFolders: window.openFolders) {
            state.owesFileSystemFlush = true
        }
        state.files += plan.fileCount
        state.bytes += plan.totalBytes
        state.bytesWritten += files.reduce(0) { $0 + plan.items[$1].size }
        state.resumed += left.kept.count
        state.bytesResumed += left.kept.keys.reduce(0) { $0 + plan.items[$1].size }
    }

    /// True when `tree`'s record says its files were on the device before the stamp was written
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

    /// Removes the stamp and the flushed marker an earlier call may have left in a staging tree this call
    /// resumes: the tree is complete, and on the device, only once this call has checked and written it. A switch
    /// (not `inPlace`) also removes the flat folder an upgrade in place staged its files in: never switched in.
    private func forgetCompletion(of staging: Descriptor, inPlace: Bool) throws(AssetPackError) {
        guard let folder = try io(staging.existingDirectory(at: [StagingNames.recordDirectory])) else { return }
        try io(folder.remove(StagingNames.stampFile))
        try io(folder.remove(StagingNames.flushedMarkerFile))
        if !inPlace { try io(TreeRemoval.remove(StagingNames.movedFilesFolder, in: folder)) }
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

/// What the windows of one install share: the installed tree an upgrade links from, the check of a resumed
/// staging tree, and the counts so far. Written by the thread that writes the windows, one at a time.
private final class WindowState {
    /// The installed tree an upgrade links its unchanged files from, and its record (nil when it cannot be read).
    struct Upgrade {
        let tree: Descriptor
        let recorded: RecordCursor?
        /// True when the installed tree was flushed when it was installed: its linked files need no flush.
        let wasFlushed: Bool
    }

    let upgrade: Upgrade?
    let resume: ResumeCheck?
    /// True for an upgrade in place (``InPlaceUpgrade``): only what changed is staged.
    let inPlace: Bool
    /// Where the files go in the staging tree: in its flat folder in place, else at their paths.
    var layout: StagingLayout { StagingLayout(inPlace: inPlace) }
    var files = 0
    var bytes: UInt64 = 0
    /// Bytes of the files written (not linked from the installed tree, not kept from staging).
    var bytesWritten: UInt64 = 0
    var linked = 0, resumed = 0
    var bytesResumed: UInt64 = 0
    /// True once a window left its flush to one `syncfs` after the last window.
    var owesFileSystemFlush = false
    /// The tree's stamp, once the last window is planned.
    var stamp: String?
    /// What the installed tree held that its record does not know (``UnknownEntries``).
    var unknown: [String] = []
    /// The same entries by their names' bytes, for an upgrade in place to remove.
    var unknownFound: [UnknownEntries.Found] = []

    init(upgrade: Upgrade?, resume: ResumeCheck?, inPlace: Bool) {
        self.upgrade = upgrade
        self.resume = resume
        self.inPlace = inPlace
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
