import AssetPackSystem

/// What an install would do (``AssetInstaller/dryRun()``, `assetpack expand --dry-run`). Encoded, its fields by name.
public struct InstallPreview: Sendable, Equatable, Encodable {
    /// The destination, absolute.
    public var destination: String
    /// True when the destination already holds the source's version: nothing would change.
    public var upToDate = false
    /// Files (and symlinks) of the new tree, and their bytes.
    public var files = 0
    public var bytes: UInt64 = 0
    /// Files that would be written (not linked from the installed tree), and their bytes.
    public var filesWritten = 0
    public var bytesWritten: UInt64 = 0
    /// For a bundle on a server (nil for any other source), what the install would download, exactly, when
    /// nothing fails: the bytes and requests of file data (``BundleDelivery/requestCount(for:)``), changed blocks
    /// only, without what an interrupted install left in staging; the identity, manifest and signature apart.
    public var bytesToFetch: UInt64?
    public var requestsToFetch: Int?
    /// Bytes and requests of the identity, manifest and signature fetched to work this out (an install fetches
    /// them again).
    public var manifestBytes: UInt64?
    public var manifestRequests: Int?
    /// Files of the installed tree that would be hard-linked unchanged.
    public var filesLinked = 0
    /// Files of the installed tree's record that the new tree does not hold, and their bytes: removed.
    public var filesRemoved = 0
    public var bytesRemoved: UInt64 = 0
    /// What the installed tree holds that its record does not know: kept, or removed with
    /// ``ExpansionOptions/removesUnknownEntries``.
    public var unknown: [String] = []

    /// The preview of an install into `destination` (absolute) that would change nothing when `upToDate`.
    package init(destination: String, upToDate: Bool = false, unknown: [String] = []) {
        self.destination = destination
        self.upToDate = upToDate
        self.unknown = unknown
    }
}

extension AssetInstaller {
    /// What ``installSynchronously(progress:cancellation:)`` would do now, worked out by the install's own
    /// planning, upgrade diff and (for a delivered bundle) resume check and choice of requests
    /// (`UpgradeDiff.split`, `DeliveryRequests`), writing nothing (an
    /// archive the plan must copy to read is copied to the temporary folder and removed). A staging tree an
    /// interrupted call left is counted as resumed for a delivered bundle only (what it would not fetch again).
    /// - Throws: what the install would throw before writing: a destination it refuses, a damaged or hostile
    ///   source, an empty tree that is not allowed.
    public func dryRun() throws(AssetPackError) -> InstallPreview {
        var preview = InstallPreview(destination: destination, upToDate: upToDateStamp() != nil)
        if preview.upToDate { return preview }
        var reading = self
        reading.options.spoolFolder = nil
        let status = try InstalledTree.status(at: destination)
        // The install's own check of what is at the destination: a folder assetpack did not make is refused here too.
        let parent = try io(FileSystem.status(parentPath)) == nil ? nil : try io(Descriptor.directory(parentPath))
        let current = try parent.flatMap { (parent) throws(AssetPackError) in
            try InstallTransaction(installer: self, parent: parent, progress: ProgressTracker(callback: nil, cancellation: nil))
                .currentTree()
        }
        let tree = status.installed == nil ? nil : current
        let delivered: DeliveredBundleSource? = if case .delivered(let bundle) = source.storage { bundle } else { nil }
        var planning = try InstallPlanning.choose(reading, needsStampFirst: false)
        while true {
            preview = InstallPreview(destination: destination, unknown: status.unknown)
            if delivered != nil { (preview.bytesToFetch, preview.requestsToFetch) = (0, 0) }
            let staging = try delivered == nil ? nil : parent.flatMap { (parent) throws(AssetPackError) in
                try StagingArea.resumable(StagingNames.staging(for: name), in: parent, stamp: planning.stamp, marker: planning.marker)
            }
            let layout = StagingLayout(inPlace: options.upgradesInPlace && tree != nil)
            let resume = try staging.map { (staging) throws(AssetPackError) in try ResumeCheck(root: staging, removes: false, layout: layout) }
            let (diff, record) = (tree.flatMap(RecordCursor.init(tree:)), tree.flatMap(RecordCursor.init(tree:)))
            let stamp = try planning.run { (window) throws(AssetPackError) in
                let left = try resume?.check(window.plan) ?? ResumeCheck.Outcome()
                let toWrite = try preview.add(window.plan, installed: tree, diff: diff, record: record, left: left)
                guard let delivered else { return }
                let requests = try DeliveryRequests.of(toWrite, in: window.plan, bundle: delivered, staging: staging, layout: layout,
                                                       partial: left.partial)
                preview.bytesToFetch? += requests.reduce(0) { $0 + $1.length }
                preview.requestsToFetch? += requests.reduce(0) { $0 + delivered.delivery.requestCount(for: $1) }
            }
            // As the install does: an empty tree that is not allowed goes to a whole plan, which refuses it.
            if let stamp, preview.files > 0 || options.allowsEmpty {
                if status.installed?.identity == stamp {
                    var upToDate = InstallPreview(destination: destination, upToDate: true)
                    (upToDate.files, upToDate.bytes) = (preview.files, preview.bytes)
                    return upToDate
                }
                preview.filesRemoved = max(0, (status.installed?.files ?? 0) - preview.filesRemoved)
                preview.bytesRemoved = (status.installed?.bytes ?? 0) - min(status.installed?.bytes ?? 0, preview.bytesRemoved)
                return preview
            }
            planning = try InstallPlanning.whole(reading)
        }
    }
}

extension InstallPreview {
    /// Adds the files of `plan` (one window): linked when `diff` finds them unchanged in `installed`, written
    /// otherwise; ``filesRemoved`` counts those `record` lists (the caller turns that into the removed ones), and
    /// the links (the record's file count holds its links, its file list does not: a link is taken to stay).
    /// `left`: what an interrupted install left in staging. Returns the files the install would write.
    mutating func add(_ plan: ExpansionPlan, installed: Descriptor?, diff: RecordCursor?, record: RecordCursor?,
                      left: ResumeCheck.Outcome) throws(AssetPackError) -> [Int] {
        let (unchanged, _, toWrite) = try UpgradeDiff.split(plan, installed: installed, recorded: diff, left: left)
        let positions = PlanOrder.positions(of: plan.items).filter { plan.items[$0].kind != .directory }
        let recorded = record?.files(at: positions.map { ($0, Array(plan.items[$0].path.string.utf8)) }) ?? [:]
        for position in positions {
            let size = plan.items[position].size
            (files, bytes) = (files + 1, bytes + size)
            if unchanged[position] != nil {
                filesLinked += 1
            } else {
                (filesWritten, bytesWritten) = (filesWritten + 1, bytesWritten + size)
            }
            if let old = recorded[position] { (filesRemoved, bytesRemoved) = (filesRemoved + 1, bytesRemoved + old.size) }
            if record != nil && plan.items[position].kind == .symlink { filesRemoved += 1 }
        }
        return toWrite
    }
}
