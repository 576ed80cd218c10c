import AssetPackZip

/// Plans an archive given as the source itself (``ZipAssetSource``: `assetpack expand app.zip`) from its
/// central directory, entry by entry, instead of walking it with `list`/`open`: the walk would find the
/// same tree (``TreePlanner`` keeps it for comparison), but with a `list` and an `open` per file, and its
/// index folds away what a walk then cannot notice: a leading `/`, empty components, an empty name, a
/// name stored twice, a directory entry beside a file of the same name. So every entry that lies under the
/// source's root is checked the way an entry of an archive inside a tree is (``ArchiveEntryPolicy``) and
/// added to the ``PlanBuilder``, which refuses duplicates, case and normalization twins, and a file that is
/// also a folder. Entries outside the root are never expanded and are not checked. As in the walk,
/// folders get the default permissions, files the default file mode, `.assetpack` at the top is skipped,
/// and every `.zip` file is planned as unzipped into its folder unless ``ExpansionOptions/keepZips``.
///
/// Symbolic-link entries are refused even when ``ExpansionOptions/allowSymlinks`` is set: the source is
/// read through `list` and `open`, which have no links. (Links are created from archives found *inside*
/// a folder or bundle.)
enum ZipSourcePlanner {
    /// Adds every item of `zip` to `builder`.
    /// - Throws: `.unsafePath`, `.conflict`, `.symlink`, `.unsupported` or `.limitExceeded`, naming the
    ///   archive and the entry; errors of a nested archive.
    static func collect(_ zip: ZipAssetSource, options: ExpansionOptions, into builder: inout PlanBuilder) throws(AssetPackError) {
        let slash = UInt8(ascii: "/")
        let root = zip.root.utf8.split(separator: slash).map { Array($0) }
        let archive = zip.archive.name
        var nested: [AssetPath] = []
        builder.reserve(zip.archive.entries.count)
        for entry in zip.archive.entries {
            if !root.isEmpty {  // (with no root every entry is under it, and its path is its full path)
                let parts = entry.name.utf8.split(separator: slash).map { Array($0) }
                guard parts.starts(with: root), parts.count != root.count else { continue }
            }
            let full = try ArchiveEntryPolicy.path(of: entry, archive: archive)
            let path = root.isEmpty ? full : try ArchiveEntryPolicy.path(
                of: entry, relativeName: full.components.dropFirst(root.count).joined(separator: "/"), archive: archive)
            if path.components.first == BundleManifest.reservedDirectory { continue }  // skipped by the walk too
            switch entry.kind {
            case .directory:
                try builder.add(.directory(path), from: archive)
            case .file:
                try ArchiveEntryPolicy.checkReadable(entry, archive: archive)
                try ArchiveEntryPolicy.checkDeclaredRatio(entry, limits: zip.archive.limits, archive: archive)
                if !options.keepZips && TreePlanner.isZip(path.name) {
                    // Its own folders are added now; its contents once every entry of the source is in.
                    try builder.add(.directory(path.parent), from: archive)
                    nested.append(path)
                } else {
                    try builder.add(ExpansionItem(path: path, kind: .file, size: entry.uncompressedSize, crc32: entry.crc32,
                                                  permissions: PermissionPolicy.defaultFile, origin: .sourceFile(path)),
                                    from: archive)
                }
            case .symlink:
                guard options.allowSymlinks else { throw ArchivePlanner.symlinkRefused(entry, archive: archive) }
                throw AssetPackError(.symlink, "entry \(AssetPath.quoted(entry.name)) is a symbolic link; an archive expanded "
                                     + "as the source is read through list/open, which has no links, so its links are "
                                     + "not created even when allowed", path: archive)
            case .special:
                throw ArchivePlanner.specialRefused(entry, archive: archive)
            }
        }
        let planner = ArchivePlanner(source: zip, options: options)
        for path in nested.sorted() { try planner.unpack(path, into: path.parent, builder: &builder) }
    }
}
