/// Plans a packed bundle from its manifest: every logical directory and file, each file read either
/// from a plain file of the bundle or from its entry in the archive the manifest names. No walk.
struct ManifestPlanner {
    let source: any AssetSource
    let manifest: BundleManifest
    let options: ExpansionOptions

    func plan() throws(AssetPackError) -> ExpansionPlan {
        var builder = PlanBuilder(maxTotalBytes: options.maxTotalBytes)
        builder.reserve(manifest.entries.count)
        var archives: [String: ArchiveHandle] = [:]
        for entry in manifest.entries {
            let path = try AssetPath(entry.path)
            let origin = "\(BundleManifest.path) entry \"\(entry.path)\""
            switch entry.kind {
            case .directory:
                try builder.add(.directory(path, permissions: PermissionPolicy.directory(entry.mode)), from: origin)
            case .file:
                let from = try self.origin(of: entry, archives: &archives)
                let blocks = entry.storage?.form == .packed ? entry.storage?.blocks.map { BlockLayout(pairs: $0, jobs: options.jobs) } : nil
                try builder.add(ExpansionItem(path: path, kind: .file, size: entry.size ?? 0, crc32: entry.crc32,
                                              permissions: PermissionPolicy.file(entry.mode), origin: from, blocks: blocks), from: origin)
            }
        }
        return ExpansionPlan(sourceName: source.name, items: builder.takeSortedItems(), identity: manifest.identity,
                             usesManifest: true, stamp: ExpansionPlan.manifestStamp(manifest.identity))
    }

    private func origin(of entry: BundleManifest.Entry,
                        archives: inout [String: ArchiveHandle]) throws(AssetPackError) -> ExpansionItem.Origin {
        guard let storage = entry.storage else {
            throw AssetPackError(.manifest, "entry \"\(entry.path)\" has no storage", path: BundleManifest.path)
        }
        let file: AssetPath
        do {
            file = try AssetPath(storage.file)
        } catch {
            throw AssetPackError(.manifest, "entry \"\(entry.path)\" is stored at an \(error.message)", path: BundleManifest.path)
        }
        switch storage.form {
        case .plain:
            return .sourceFile(file)
        case .packed:
            guard let name = storage.entry else {
                throw AssetPackError(.manifest, "packed entry \"\(entry.path)\" names no archive entry", path: BundleManifest.path)
            }
            let handle = archives[storage.file] ?? ArchiveHandle(source: source, path: file, limits: options.limits)
            archives[storage.file] = handle
            return .archiveEntry(handle, entryName: name)
        }
    }
}
