/// Plans a packed bundle from its manifest: every logical directory and file, each file read either
/// from a plain file of the bundle or from its entry in the archive the manifest names (as
/// ``BundleManifest/Entry/location(origin:)`` reads the manifest). No walk.
struct ManifestPlanner {
    /// The bundle as stored.
    let source: ResolvedSource
    let manifest: BundleManifest
    let options: ExpansionOptions
    /// The bundle when its files are delivered (``DeliveredBundleSource``): every file's origin is then
    /// ``ExpansionItem/Origin/delivered(_:)``.
    var delivered: DeliveredBundleSource? = nil

    func plan() throws(AssetPackError) -> ExpansionPlan {
        var builder = PlanBuilder(maxTotalBytes: options.maxTotalBytes)
        builder.reserve(manifest.entries.count)
        var archives: [AssetPath: ArchiveHandle] = [:]
        var last: (file: String, handle: ArchiveHandle)?
        // One origin for every entry: a conflict message names the paths itself, and a text per entry
        // would cost a string (and a slot in the builder's table of origins) per file.
        let origin = BundleManifest.path
        // By index, each entry read in place: a copy of each would retain and release its strings.
        let entries = manifest.entries
        for index in entries.indices {
            let path = try AssetPath(entries[index].path)
            switch entries[index].kind {
            case .directory:
                try builder.add(.directory(path, permissions: PermissionPolicy.directory(entries[index].mode)), from: origin)
            case .file:
                let from = try self.origin(of: entries[index], archives: &archives, last: &last)
                let blocks = entries[index].storage?.form == .packed
                    ? entries[index].storage?.blocks.map { BlockLayout(pairs: $0, jobs: options.jobs) } : nil
                try builder.add(ExpansionItem(path: path, kind: .file, size: entries[index].size ?? 0, crc32: entries[index].crc32,
                                              permissions: PermissionPolicy.file(entries[index].mode), origin: from, blocks: blocks,
                                              sha256: entries[index].sha256), from: origin)
            }
        }
        return ExpansionPlan(sourceName: source.name, items: builder.takeSortedItems(), identity: manifest.identity,
                             usesManifest: true, stamp: ExpansionPlan.manifestStamp(manifest.identity), reading: source)
    }

    /// Where `entry`'s bytes are: a delivered file, or in this bundle. Consecutive files of a pack archive
    /// name the same archive: the last archive named (`last`) is reused without parsing its path or looking
    /// it up again.
    private func origin(of entry: BundleManifest.Entry, archives: inout [AssetPath: ArchiveHandle],
                        last: inout (file: String, handle: ArchiveHandle)?) throws(AssetPackError) -> ExpansionItem.Origin {
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
