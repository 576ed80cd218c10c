import AssetPackSystem
import AssetPackZip

/// Fills a staging tree from a plan: each file that is not already there (kept from an interrupted run)
/// is hard-linked from the installed tree when unchanged, or written and verified, its folders made as
/// the writers reach them (``StagingFolders``); symlinks come last and are checked for containment once
/// all exist.
final class StagingFill: @unchecked Sendable {
    let plan: ExpansionPlan
    let staging: Descriptor
    let source: any AssetSource
    let progress: ProgressTracker
    let options: ExpansionOptions
    /// Every file finished so far, by item index.
    let staged: ResultSlots<StagedFile>
    /// Unfinished block-indexed files an interrupted run left: the blocks written, by item index.
    let partial: [Int: Set<Int>]
    /// The plan's folders, made as the files written need them (``writeFiles(_:)``); ``StagingFolders/makeAll()``
    /// makes the rest.
    let folders: StagingFolders
    /// Where the files written go: at their paths, or in the flat folder of an upgrade in place.
    let layout: StagingLayout

    /// A fill of `staging` from `plan`. `foldersAbove`: only the folders above the items at these positions are
    /// made (all when nil); `layout`: where the files written go.
    init(plan: ExpansionPlan, staging: Descriptor, source: any AssetSource, progress: ProgressTracker,
         options: ExpansionOptions, kept: [Int: StagedFile], partial: [Int: Set<Int>] = [:], foldersAbove: [Int]? = nil,
         layout: StagingLayout = .tree) {
        self.layout = layout
        self.partial = partial
        self.plan = plan
        self.staging = staging
        self.source = source
        self.progress = progress
        self.options = options
        self.staged = ResultSlots(count: plan.items.count, kept)
        self.folders = StagingFolders(plan, in: staging, only: foldersAbove)
    }

    /// Hard-links unchanged files from the installed tree (after making every folder); returns the indexes
    /// that still need writing.
    func linkUnchanged(_ candidates: [Int: StagedFile], from installed: Descriptor,
                       movedFrom: [Int: String] = [:]) throws(AssetPackError) -> [Int] {
        try folders.makeAll()
        let from = DirectoryCursor(root: installed), to = DirectoryCursor(root: staging)
        var failed: [Int] = []
        for (position, file) in candidates.sorted(by: { $0.key < $1.key }) {
            try progress.checkCancelled()
            let item = plan.items[position]
            let old = movedFrom[position].flatMap { try? AssetPath($0) } ?? item.path
            guard let folder = from.existingParent(ofPath: old.string),
                  try io(folder.link(old.name, to: item.path.name, in: to.parent(ofPath: item.path.string))) else {
                failed.append(position)
                continue
            }
            staged[position] = file  // a hard link: the same inode and modification time
            progress.finished(item.path, extraBytes: item.size, written: false)
        }
        return failed
    }

    /// Counts the unchanged files `unchanged` finished without staging them here (an upgrade in place leaves them
    /// in the installed tree, or links a renamed one into its own folder): staged for the record, not written.
    func keepInPlace(_ unchanged: [Int: StagedFile]) {
        for (position, file) in unchanged {
            staged[position] = file
            progress.finished(plan.items[position].path, extraBytes: plan.items[position].size, written: false)
        }
    }

    /// Writes and verifies the files at `positions`, on up to ``ExpansionOptions/jobs`` threads, each with
    /// its own buffers, zlib stream and folder descriptors: first the groups of a delivered bundle's pack
    /// members that one request brings (``DeliveryGroups``), then the other files in the order of ``WorkOrder``.
    /// Each batch first has the folders above its files made (``StagingFolders/make(before:)``); each archive
    /// read from is let go once its last file is written (``ArchiveReleases``).
    func writeFiles(_ positions: [Int]) throws(AssetPackError) {
        let writer = FileMaterializer(source: plan.source, folder: plan.folder, progress: progress, durability: options.durability,
                                      checksSHA256: options.checksSHA256)
        let (groups, rest) = DeliveryGroups.of(positions, in: plan.items, coalescing: writer.delivered?.delivery.coalescing ?? .none)
        let batches = WorkOrder.batches(of: rest, in: plan.items)
        let jobs = max(1, min(options.jobs, groups.count + batches.count))
        let flat = try layout.flatFolder(in: staging, making: true)
        let places = PerWorker(count: jobs) { StagedFileFolders(staging: staging, layout: layout, flat: flat) }
        let workers = PerWorker(count: jobs) { MaterializerWorker() }
        let releases = ArchiveReleases(rest, of: plan.items)
        try WorkerThreads.run(count: groups.count + batches.count, jobs: jobs) { (index, worker) throws(AssetPackError) in
            guard index >= groups.count else {
                try self.folders.make(before: groups[index].map(\.position).max() ?? 0)
                return try self.writeGroup(groups[index], in: places[worker], with: writer)
            }
            let batch = batches[index - groups.count]
            try self.folders.make(before: batch.max() ?? 0)
            for position in batch {
                let item = self.plan.items[position]
                try self.progress.checkCancelled()
                let folder = try places[worker].folder(of: item.path)
                let kept = self.partial.isEmpty ? [] : self.partial[position] ?? []
                self.staged[position] = try writer.write(item, as: places[worker].name(of: item.path), into: folder,
                                                         using: workers[worker], keptBlocks: kept)
                releases.written(item)
                self.progress.finished(item.path, extraBytes: writer.reportsBytes(of: item) ? 0 : item.size, written: true)
            }
        }
    }

    /// Writes one group of delivered pack members with one request and counts each member done.
    private func writeGroup(_ members: [DeliveryGroups.Member], in places: StagedFileFolders,
                            with writer: FileMaterializer) throws(AssetPackError) {
        try progress.checkCancelled()
        let checksums = try writer.writeGroup(members, of: plan.items, in: places)
        for (member, crc) in zip(members, checksums) {
            self.staged[member.position] = StagedFile(crc32: crc)
            progress.finished(plan.items[member.position].path, extraBytes: plan.items[member.position].size, written: true)
        }
    }

    /// Creates the planned symlinks, then checks each resolves inside the tree. When one does not, every
    /// link is removed again, so no link pointing outside is left even in the staging tree, and the error
    /// names the archive and the entry the link came from.
    func makeSymlinks() throws(AssetPackError) {
        let links = plan.items.filter { $0.kind == .symlink }
        guard !links.isEmpty else { return }
        let cursor = DirectoryCursor(root: staging)
        for item in links {
            let folder = try io(cursor.parent(ofPath: item.path.string))
            try io(folder.remove(item.path.name))
            try io(folder.makeSymlink(item.path.name, target: item.symlinkTarget ?? ""))
        }
        let containment = SymlinkContainment(root: staging)
        for item in links {
            do {
                try containment.check(item.path)
            } catch {
                removeSymlinks(links)
                throw StagingFill.located(error, item)
            }
            progress.finished(item.path, extraBytes: 0, written: true)
        }
    }

    private func removeSymlinks(_ links: [ExpansionItem]) {
        let cursor = DirectoryCursor(root: staging)
        for item in links {
            guard let folder = cursor.existingParent(ofPath: item.path.string), (try? folder.status(item.path.name))??.kind == .symlink
            else { continue }
            try? folder.remove(item.path.name)
        }
    }

    /// `error` about a link, naming the archive entry it came from.
    private static func located(_ error: AssetPackError, _ item: ExpansionItem) -> AssetPackError {
        guard error.code == .symlink, case .zipEntry(let handle, let name) = item.origin else { return error }
        return handle.location.error(.symlink, "entry \(AssetPath.quoted(name)): \(error.message)", entry: name)
    }

    /// Adds the plan's items, with the files staged, to `lists`.
    func addToRecord(_ lists: InstallRecordLists) throws(AssetPackError) {
        try lists.add(plan, staged: staged)
    }
}
