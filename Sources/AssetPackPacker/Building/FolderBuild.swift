import AssetPack
import AssetPackSystem
import AssetPackZip

/// One folder build as the walk hands its items over, in path order: each item is planned and becomes a unit
/// of work (a file copied or packed, or a full pack archive) and a place in the manifest. Units are made a batch
/// of at most ``batchFiles`` files at a time on ``BuildOptions/jobs`` threads, and the manifest takes each
/// item's entry in path order once its unit is done.
struct FolderBuild {
    /// One item's place in the manifest: a folder, or member `member` of unit `unit`'s entries.
    private enum Slot {
        case directory(String)
        case unit(Int, member: Int)
    }

    /// Files of the units waiting to be made, past which a batch is made.
    static let batchFiles = 16_384

    let root: String
    let options: BuildOptions
    let work: FileWork
    private var counter: ProgressCounter
    private var summary: BuildSummary
    private let manifestFile: FileDescriptor
    private var manifestOpen = true
    private var manifest: BundleManifest.Writer
    private var grouping: PackGrouping
    /// The previous bundle's entries, merged in as the walk goes (incremental build).
    private let previous: PreviousEntries?
    /// The unit number of the open pack (``PackGrouping/open``), and its members' previous entries (none
    /// without a previous bundle).
    private var openPack: Int?
    private var openPrevious: [BundleManifest.Entry?] = []
    private var madePacksFolder = false
    private var units = 0
    /// Units planned, not yet made, and the files they hold.
    private var batch: [(number: Int, unit: BuildUnit)] = []
    private var batchFiles = 0
    /// Places in the manifest, in path order: those before `written` are written.
    private var slots: [Slot] = []
    private var written = 0
    /// The entries of units made, by unit number, until all their slots are written.
    private var made: [Int: [BundleManifest.Entry]] = [:]

    /// A build into the staging folder `root`, counted in `summary`, reusing what `cache` and `previous`
    /// allow; the manifest file is opened there.
    init(root: String, options: BuildOptions, cache: IncrementalCache?, previous: PreviousEntries?,
         counter: ProgressCounter, summary: BuildSummary) throws(AssetPackError) {
        self.root = root
        self.previous = previous
        self.summary = summary
        self.options = options
        self.work = FileWork(root: root, options: options, cache: cache)
        self.counter = counter
        self.grouping = PackGrouping(budget: options.rules.packSize)
        try io(FileSystem.makeDirectory(root + "/" + BundleManifest.reservedDirectory))
        if options.immutableNames { try io(FileSystem.makeDirectory(root + "/" + ObjectNames.folder)) }
        let path = root + "/" + BundleManifest.path
        let file = try io(FileSystem.createFile(path, permissions: 0o644))
        manifestFile = file
        manifest = BundleManifest.Writer { (bytes) throws(AssetPackError) in try io(file.writeAll(bytes, path: path)) }
    }

    /// Plans `item` (among the names of its folder), creating it at once when it is a folder; makes a batch
    /// when enough files wait.
    mutating func add(_ item: SourceItem, names: FolderNames) throws(AssetPackError) {
        let planned = try BundlePlan.plan(item, names: names, rules: options.rules)
        counter.found(item)
        switch planned.action {
        case .directory:
            // With immutable names every file goes to the objects folder; the manifest lists the folders.
            if !options.immutableNames { try io(FileSystem.makeDirectory(root + "/" + item.path.string)) }
            slots.append(.directory(item.path.string))
        case .copy, .pack:
            units += 1
            let old = planned.action == .copy ? nil : previous?.entry(at: item.path.string)
            batch.append((units, .file(planned, previous: old)))
            batchFiles += 1
            slots.append(.unit(units, member: 0))
        case .gather:
            if let full = grouping.add(item) { try plan(full) }
            if let previous { openPrevious.append(previous.entry(at: item.path.string)) }
            if openPack == nil {
                units += 1
                openPack = units
            }
            slots.append(.unit(openPack!, member: grouping.open!.members.count - 1))
        }
        if batchFiles >= Self.batchFiles { try make() }
    }

    /// Makes what is left, writes the manifest and the identity file; returns the summary.
    mutating func finish() throws(AssetPackError) -> BuildSummary {
        if let last = grouping.finish() { try plan(last) }
        try make()
        guard written == slots.count else {
            throw AssetPackError(.invalidArgument, "a unit of the build was never made", path: root)
        }
        let identity = try ManifestWriter.finish(&manifest, rules: options.rules)
        manifestOpen = false
        try io(manifestFile.closeAfterWriting(path: root + "/" + BundleManifest.path))
        try ManifestWriter.writeFile(root + "/" + BundleManifest.identityPath, Array(identity.utf8))
        summary.identity = identity
        summary.bytesOut += UInt64(manifest.size + identity.utf8.count)
        return summary
    }

    /// Closes the manifest file of a build that failed.
    mutating func abandon() {
        if manifestOpen { manifestFile.close() }
        manifestOpen = false
    }

    /// Adds the full pack `pack` (the open one's unit) to the batch.
    private mutating func plan(_ pack: PackGroup) throws(AssetPackError) {
        if !madePacksFolder && !options.immutableNames {
            try io(FileSystem.makeDirectory(root + "/" + PackGrouping.folder))
            madePacksFolder = true
        }
        batch.append((openPack!, .pack(pack, previous: openPrevious)))
        openPrevious = []
        batchFiles += pack.members.count
        openPack = nil
    }

    /// Makes the units of the batch on ``BuildOptions/jobs`` threads, then writes the manifest entries
    /// whose units are made, in path order.
    private mutating func make() throws(AssetPackError) {
        let units = batch
        batch = []
        batchFiles = 0
        let work = self.work
        try OrderedPipeline.run(count: units.count, jobs: options.jobs, window: 16 * options.jobs,
                                produce: { (index) throws(AssetPackError) -> FileOutcome in
            switch units[index].unit {
            case .file(let planned, let old): try work.prepare(planned, old: old)
            case .pack(let pack, let olds): try work.gather(pack, olds: olds)
            }
        }, consume: { (index, outcome) throws(AssetPackError) in
            made[units[index].number] = try record(units[index].unit, outcome)
            try writeSlots()
        })
        try writeSlots()
        slots.removeFirst(written)
        written = 0
    }

    /// Counts what became of one unit in the summary; returns its manifest entries. A file deflated in
    /// blocks is packed first, with every thread.
    private mutating func record(_ unit: BuildUnit,
                                 _ outcome: FileOutcome) throws(AssetPackError) -> [BundleManifest.Entry] {
        var outcome = outcome
        if case .packInBlocks(let archive, let entry, let method) = outcome, case .file(let planned, let old) = unit {
            outcome = try work.pack(planned.item, archive: archive, entry: entry, method: method, jobs: options.jobs, old: old)
        }
        switch outcome {
        case .done(let entry, let written, let packed, let reused):
            summary.files += 1
            summary.bytesIn += entry.size ?? 0
            summary.bytesOut += written
            if let packed {
                summary.packed += 1
                if packed.method == .stored { summary.stored += 1 }
                if reused { summary.reused += 1 }
            }
            return [entry]
        case .gathered(let entries, let packed, let written, let reused):
            summary.files += entries.count
            summary.bytesIn += entries.reduce(0) { $0 + ($1.size ?? 0) }
            summary.bytesOut += written
            summary.packed += packed.count
            summary.stored += packed.count { $0.method == .stored }
            if reused { summary.reused += packed.count }
            return entries
        case .packInBlocks:
            throw AssetPackError(.invalidArgument, "a pack archive cannot be deflated in blocks", path: root)
        }
    }

    /// Writes the manifest entries, in path order, up to the first whose unit is not made yet.
    private mutating func writeSlots() throws(AssetPackError) {
        while written < slots.count {
            switch slots[written] {
            case .directory(let path):
                try manifest.add(.directory(path))
                summary.directories += 1
            case .unit(let number, let member):
                guard let entries = made[number] else { return }
                try manifest.add(entries[member])
                counter.finished(entries[member])
                if member == entries.count - 1 { made[number] = nil }
            }
            written += 1
        }
    }
}

/// One unit of a folder build's parallel work: a file copied or packed on its own, or a pack archive, with
/// the previous bundle's entries of its files (incremental build).
enum BuildUnit: Sendable {
    case file(PlannedEntry, previous: BundleManifest.Entry?)
    case pack(PackGroup, previous: [BundleManifest.Entry?])
}
