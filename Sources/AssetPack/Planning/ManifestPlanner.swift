/// Plans a packed bundle from its manifest: every logical directory and file, each file read either
/// from a plain file of the bundle or from its entry in the archive the manifest names (as
/// ``BundleManifest/Entry/location(origin:)`` reads the manifest). No walk.
///
/// It takes the manifest's entries a run at a time as they are read (a ``ManifestEntrySink``), so that a
/// bundle's manifest is planned without its entry list ever being held whole: for 1,000,000 files that list
/// takes about 300 MB, more than the plan.
final class ManifestPlanner: ManifestEntrySink {
    /// The bundle as stored.
    let source: ResolvedSource
    let options: ExpansionOptions
    /// The bundle when its files are delivered (``DeliveredBundleSource``): every file's origin is then
    /// ``ExpansionItem/Origin/delivered(_:)``.
    let delivered: DeliveredBundleSource?
    private var builder: PlanBuilder
    /// The pack archives named so far, and the last one (consecutive files of a pack archive name the same
    /// archive: it is reused without parsing its path or looking it up again).
    private var archives: [AssetPath: ArchiveHandle] = [:]
    private var last: (file: String, handle: ArchiveHandle)?

    /// A planner of the bundle `source` (stored, or delivered as `delivered`).
    init(source: ResolvedSource, options: ExpansionOptions, delivered: DeliveredBundleSource? = nil) {
        self.source = source
        self.options = options
        self.delivered = delivered
        builder = PlanBuilder(maxTotalBytes: options.maxTotalBytes)
    }

    /// The plan of `manifest`, whose entries are in hand.
    static func plan(_ manifest: BundleManifest, source: ResolvedSource, options: ExpansionOptions,
                     delivered: DeliveredBundleSource? = nil) throws(AssetPackError) -> ExpansionPlan {
        let planner = ManifestPlanner(source: source, options: options, delivered: delivered)
        try planner.take(manifest.entries, expectedCount: manifest.entries.count)
        return planner.plan(identity: manifest.identity)
    }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        if let expectedCount, builder.items.isEmpty { builder.reserve(expectedCount) }
        // One origin for every entry: a conflict message names the paths itself, and a text per entry
        // would cost a string (and a slot in the builder's table of origins) per file.
        let origin = BundleManifest.path
        // By index, each entry read in place: a copy of each would retain and release its strings.
        for index in entries.indices {
            let path = try AssetPath(entries[index].path)
            switch entries[index].kind {
            case .directory:
                try builder.add(.directory(path, permissions: PermissionPolicy.directory(entries[index].mode)), from: origin)
            case .file:
                let from = try self.origin(of: entries[index])
                let blocks = entries[index].storage?.form == .packed
                    ? entries[index].storage?.blocks.map { BlockLayout(pairs: $0, jobs: options.jobs) } : nil
                try builder.add(ExpansionItem(path: path, kind: .file, size: entries[index].size ?? 0, crc32: entries[index].crc32,
                                              permissions: PermissionPolicy.file(entries[index].mode), origin: from, blocks: blocks,
                                              digest: try Self.digest(entries[index])), from: origin)
            }
        }
    }

    /// The entry's SHA-256 as its bytes (checked as 64 lowercase hex digits with the manifest's entries).
    private static func digest(_ entry: BundleManifest.Entry) throws(AssetPackError) -> SHA256Digest? {
        guard let hex = entry.sha256 else { return nil }
        guard let digest = SHA256Digest(hex: hex) else {
            throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" has a SHA-256 that is not 64 lowercase hex digits",
                                 path: BundleManifest.path)
        }
        return digest
    }

    func restart() {
        builder = PlanBuilder(maxTotalBytes: options.maxTotalBytes)
        archives = [:]
        last = nil
    }

    /// The plan of the entries taken, for a manifest whose identity is `identity`.
    func plan(identity: String) -> ExpansionPlan {
        ExpansionPlan(sourceName: source.name, items: builder.takeSortedItems(), identity: identity,
                      usesManifest: true, stamp: ExpansionPlan.manifestStamp(identity), reading: source)
    }

    /// Where `entry`'s bytes are: a delivered file, or in this bundle.
    private func origin(of entry: BundleManifest.Entry) throws(AssetPackError) -> ExpansionItem.Origin {
        if let delivered {
            _ = try entry.location(origin: BundleManifest.path)  // checks the storage as for a local bundle
            return .delivered(DeliveredFile(bundle: delivered, entry: entry))
        }
        if let last, let storage = entry.storage, storage.form == .packed, storage.file == last.file,
           let inner = storage.entry, !inner.isEmpty {
            return .zipEntry(last.handle, entryName: inner)
        }
        switch try entry.location(origin: BundleManifest.path) {
        case .plain(let file):
            return source.origin(of: file)
        case .packed(let archive, let name):
            let handle: ArchiveHandle
            if let known = archives[archive] {
                handle = known
            } else {
                handle = ArchiveHandle(in: source.access, at: archive, limits: options.limits)
                archives[archive] = handle
            }
            last = (entry.storage?.file ?? "", handle)
            return .zipEntry(handle, entryName: name)
        }
    }
}
