import AssetPackZip

/// Checks an archive given as the source itself (``ZipAssetSource``: `assetpack expand app.zip`) before
/// it is walked. The walk sees the archive only through `list` and `open`, whose index folds away what a
/// walk then cannot notice: a leading `/`, empty components, an empty name, a name stored twice, a
/// directory entry beside a file of the same name. So every entry that lies under the source's root is
/// first checked the way an entry of an archive inside a tree is (``ArchiveEntryPolicy``), and collected
/// into a ``PlanBuilder``, which refuses duplicates, case and normalization twins, and a file that is also
/// a folder. Entries outside the root are never expanded and are not checked.
///
/// Symbolic-link entries are refused here even when ``ExpansionOptions/allowSymlinks`` is set: the walk
/// reads the source through `list`/`open`, which has no links. (Links are created from archives found
/// *inside* a folder or bundle.)
enum ZipSourceCheck {
    /// - Throws: `.unsafePath`, `.conflict`, `.symlink`, `.unsupported` or `.limitExceeded`, naming the
    ///   archive and the entry.
    static func check(_ zip: ZipAssetSource, options: ExpansionOptions) throws(AssetPackError) {
        let slash = UInt8(ascii: "/")
        let root = zip.root.utf8.split(separator: slash).map { Array($0) }
        let archive = zip.archive.name
        var builder = PlanBuilder()
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
                try builder.add(ExpansionItem(path: path, kind: .file, permissions: PermissionPolicy.defaultFile), from: archive)
            case .symlink:
                guard options.allowSymlinks else { throw ArchivePlanner.symlinkRefused(entry, archive: archive) }
                throw AssetPackError(.symlink, "entry \(AssetPath.quoted(entry.name)) is a symbolic link; an archive expanded "
                                     + "as the source is read through list/open, which has no links, so its links are "
                                     + "not created even when allowed", path: archive)
            case .special:
                throw AssetPackError(.unsupported, "entry \(AssetPath.quoted(entry.name)) is a FIFO, socket or device; "
                                     + "those are never created", path: archive)
            }
        }
    }
}
