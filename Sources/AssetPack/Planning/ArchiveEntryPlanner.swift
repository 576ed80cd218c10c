import AssetPackZip

/// Plans the entries of one zip archive from its central directory, entry by entry, before anything is
/// written: each name must be a safe relative path (``ArchiveEntryPolicy``), encrypted or unsupported
/// entries and declared compression bombs fail here, FIFO, socket and device entries become regular files,
/// links are refused unless allowed. Every entry goes to the ``PlanBuilder``, which refuses duplicates, case
/// and normalization twins, and a file that is also a folder. A directory entry's local header is read and
/// checked here, since no reader opens it later. Permissions: ``ArchiveEntryPolicy/filePermissions(_:)``.
///
/// One loop serves both archives the expander meets; a small ``Rules`` value says how they differ:
/// - an archive given as the source (``Rules/source(root:options:)``: `assetpack expand app.zip`): the
///   tree below its folder `root`, as a `list`/`open` walk would find it. Entries outside the root are not
///   checked; a bookkeeping folder at the top is refused (``SourceCheck/notBookkeeping(_:source:)``); every
///   `.zip` file is planned as unzipped into its folder unless ``ExpansionOptions/keepZips``; links are
///   refused even when allowed, since `list` and `open` have none.
/// - an archive found in a tree (``Rules/nested(into:)``), unzipped into its folder, one level: links are
///   created when allowed.
struct ArchiveEntryPlanner {
    /// How the entries of one archive become plan items.
    struct Rules {
        /// The folder of the archive whose entries are planned, without `/` at either end ("" for all).
        var root: String
        /// The folder of the plan the entries land in.
        var destination: AssetPath
        /// Link entries are created when ``ExpansionOptions/allowSymlinks`` is set (else always refused).
        var createsLinks: Bool
        /// `.zip` files are planned as unzipped into their folder, once every entry of this archive is in.
        var unpacksZips: Bool
        /// The reserved folders at the top (`BundleManifest.isReservedName(_:)`) are refused, as the
        /// planner of a walked tree refuses them (``SourceCheck/notBookkeeping(_:source:)``).
        var refusesBookkeeping: Bool

        /// An archive given as the source: its tree below the folder `root`.
        static func source(root: String, options: ExpansionOptions) -> Rules {
            Rules(root: root, destination: .root, createsLinks: false, unpacksZips: !options.keepZips, refusesBookkeeping: true)
        }

        /// An archive found in a tree, unzipped into `folder` (its parent folder).
        static func nested(into folder: AssetPath) -> Rules {
            Rules(root: "", destination: folder, createsLinks: true, unpacksZips: false, refusesBookkeeping: false)
        }
    }

    /// The source that holds the archives unzipped (a nested one is read from it).
    let source: SourceAccess
    let options: ExpansionOptions

    /// Plans the archive stored at `archivePath` of the source as unzipped into `directory`.
    func unpack(_ archivePath: AssetPath, into directory: AssetPath, builder: inout PlanBuilder) throws(AssetPackError) {
        let handle = ArchiveHandle(in: source, at: archivePath, limits: options.limits, spoolFolder: options.spoolFolder)
        try plan(handle, rules: .nested(into: directory), builder: &builder)
    }

    /// What one entry of an archive becomes.
    enum Planned {
        /// Nothing: the entry is outside the root, or the root itself.
        case skipped
        /// An item of the plan.
        case item(ExpansionItem)
        /// A `.zip` file to plan as unzipped into its folder, once every entry of its archive is in.
        case nestedArchive(AssetPath)
    }

    /// Adds every entry of `handle`'s archive that `rules` takes to `builder`.
    /// - Throws: `.unsafePath`, `.conflict`, `.symlink`, `.unsupported` or `.limitExceeded`, naming the
    ///   archive and the entry; errors of a nested archive.
    func plan(_ handle: ArchiveHandle, rules: Rules, builder: inout PlanBuilder) throws(AssetPackError) {
        let archive = try handle.archive()
        let root = Self.components(of: rules.root)
        var nested: [AssetPath] = []
        if builder.items.isEmpty { builder.reserve(archive.entryCount) }  // the archive is the whole plan
        for entry in archive.entries {
            switch try planned(entry, of: handle, archive: archive, rules: rules, root: root, carriesEntry: false) {
            case .skipped: continue
            case .item(let item): try builder.add(item, from: handle.displayName)
            case .nestedArchive(let target):
                // Its own folders are added now; its contents once every entry of this archive is in.
                try builder.add(.directory(target.parent), from: handle.displayName)
                nested.append(target)
            }
        }
        for path in nested.sorted() { try unpack(path, into: path.parent, builder: &builder) }
    }

    /// The `/`-separated parts of a root folder.
    static func components(of root: String) -> [[UInt8]] {
        root.utf8.split(separator: AssetPath.slash).map { Array($0) }
    }

    /// What `entry` of `handle`'s archive becomes under `rules` (`root`: the parts of ``Rules/root``). A
    /// file item names its entry by name (``ExpansionItem/Origin/zipEntry(_:entryName:)``), or carries it
    /// whole when `carriesEntry` (``ExpansionItem/Origin/scannedEntry(_:_:)``: for an archive that does not
    /// hold its entries to find them by).
    /// - Throws: as ``plan(_:rules:builder:)``.
    func planned(_ entry: ZipEntry, of handle: ArchiveHandle, archive: ZipArchive, rules: Rules, root: [[UInt8]],
                 carriesEntry: Bool) throws(AssetPackError) -> Planned {
        let location = handle.location
        guard let relative = try path(of: entry, below: root, archive: location) else { return .skipped }
        if rules.refusesBookkeeping { try SourceCheck.notBookkeeping(relative, source: location.file) }
        let target = try place(relative, of: entry, under: rules.destination, archive: location)
        if target.isRoot { return .skipped }
        switch entry.kind {
        case .directory:
            try checkLocalHeader(of: entry, in: archive, location: location)
            return .item(.directory(target, permissions: ArchiveEntryPolicy.directoryPermissions(entry)))
        case .file, .special:  // a FIFO, socket or device entry becomes a regular file (ArchiveEntryPolicy)
            try ArchiveEntryPolicy.checkReadable(entry, archive: location)
            try ArchiveEntryPolicy.checkDeclaredRatio(entry, limits: archive.limits, archive: location)
            if rules.unpacksZips && target.isZipArchiveName { return .nestedArchive(target) }
            return .item(ExpansionItem(path: target, kind: .file, size: entry.uncompressedSize, crc32: entry.crc32,
                                       permissions: ArchiveEntryPolicy.filePermissions(entry),
                                       origin: carriesEntry ? .scannedEntry(handle, entry) : .zipEntry(handle, entryName: entry.name),
                                       entryPosition: entry.index))
        case .symlink:
            let link = try symlinkTarget(entry, archive: archive, rules: rules, location: location)
            return .item(ExpansionItem(path: target, kind: .symlink, permissions: 0o777, symlinkTarget: link,
                                       origin: .zipEntry(handle, entryName: entry.name)))
        }
    }

    /// Reads a directory entry's local header (one small read) and checks it against the central one, as
    /// opening a file entry does: nothing else ever reads it, and a broken one means a damaged archive.
    /// - Throws: `.archive` naming the archive and the entry.
    private func checkLocalHeader(of entry: ZipEntry, in archive: ZipArchive, location: ErrorLocation) throws(AssetPackError) {
        do throws(ZipError) { try archive.checkLocalHeader(of: entry) } catch { throw location.error(error) }
    }

    /// The entry's validated path below `root` (see ``ArchiveEntryPolicy``); nil for an entry outside it.
    /// The name is placed before it is checked: an entry outside the root is never checked.
    private func path(of entry: ZipEntry, below root: [[UInt8]], archive: ErrorLocation) throws(AssetPackError) -> AssetPath? {
        if !root.isEmpty && !ArchiveEntryPlanner.isBelow(EntryName.withoutLeadingCurrentFolder(entry.name), root: root) {
            return nil
        }
        let full = try ArchiveEntryPolicy.path(of: entry, archive: archive)
        if root.isEmpty { return full }
        // A valid path has no empty components: the root's are its first ones, each followed by a `/`.
        let text = full.string
        var start = text.utf8.startIndex
        for _ in root { start = text.utf8.index(after: text.utf8[start...].firstIndex(of: AssetPath.slash)!) }
        return AssetPath(validated: String(text[start...]))
    }

    /// True when the non-empty `/`-separated parts of `name` start with those of `root` and go on after them.
    static func isBelow(_ name: Substring, root: [[UInt8]]) -> Bool {
        var matched = 0
        for part in name.utf8.split(separator: AssetPath.slash) {
            if matched == root.count { return true }
            guard part.elementsEqual(root[matched]) else { return false }
            matched += 1
        }
        return false
    }

    /// `directory` + `relative`.
    private func place(_ relative: AssetPath, of entry: ZipEntry, under directory: AssetPath,
                       archive: ErrorLocation) throws(AssetPackError) -> AssetPath {
        do {
            return try directory.appending(relative)
        } catch {
            throw archive.error(.unsafePath, "entry \(AssetPath.quoted(entry.name)): \(error.message)", entry: entry.name)
        }
    }

    private func symlinkTarget(_ entry: ZipEntry, archive: ZipArchive, rules: Rules,
                               location: ErrorLocation) throws(AssetPackError) -> String {
        // Checked first: for such an archive, naming the option would send the user to a dead end.
        guard rules.createsLinks else {
            throw location.error(.symlink, "entry \(AssetPath.quoted(entry.name)) is a symbolic link; links in an archive "
                                 + "given as the source are never created, with or without --allow-symlinks (it is read "
                                 + "through list/open, which have no links)", entry: entry.name)
        }
        guard options.allowSymlinks else { throw ArchiveEntryPlanner.symlinkRefused(entry, archive: location) }
        let bytes: [UInt8]
        do { bytes = try archive.contents(of: entry, limit: 4096) } catch { throw location.error(error) }
        let target = String(decoding: bytes, as: UTF8.self)
        if bytes.isEmpty || bytes.first == UInt8(ascii: "/") || bytes.contains(0) || bytes.contains(UInt8(ascii: "\\")) {
            throw location.error(.symlink, "entry \(AssetPath.quoted(entry.name)) links to \(AssetPath.quoted(target)), "
                                 + "which is not a relative path inside the destination", entry: entry.name)
        }
        return target
    }

    /// The error for a link entry when links are not allowed.
    static func symlinkRefused(_ entry: ZipEntry, archive: ErrorLocation) -> AssetPackError {
        archive.error(.symlink, "entry \(AssetPath.quoted(entry.name)) is a symbolic link; links are created only when allowed "
                      + "(ExpansionOptions.allowSymlinks, --allow-symlinks)", entry: entry.name)
    }
}
