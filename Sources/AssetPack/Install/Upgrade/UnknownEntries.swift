import AssetPackSystem

/// What the installed tree holds that its record does not know: files and folders the app or the user put
/// into the destination. An upgrade (or a repair) never deletes them unless asked
/// (``ExpansionOptions/removesUnknownEntries``): by default each is carried into the new tree (hard-linked;
/// a folder made anew and filled the same way, so a failed install loses nothing) and listed in
/// ``ExpansionResult/unknownKept``; with the option, left out and listed in ``ExpansionResult/unknownDeleted``.
/// A name that the new tree uses for a file is a conflict unless removal was asked for.
///
/// The walk reads each folder of the installed tree once, its names in byte order, with the record
/// (``RecordedPaths``) read alongside; recorded folders are entered, recorded files and links are not.
/// Names that are not UTF-8 are carried by their bytes.
struct UnknownEntries {
    /// The installed tree.
    let installed: Descriptor
    /// The new tree, complete but for them.
    let staging: Descriptor
    /// Leave them out of the new tree instead of carrying them.
    let removes: Bool

    /// One unknown entry: the names of the folders above it, its name, its path (a name that is not UTF-8 shown
    /// with U+FFFD), whether it is a folder.
    struct Found {
        var components: [FileName]
        var entry: FileName
        var path: String
        var isFolder: Bool

        /// The entry as results list it: its path, a folder's with a `/` at its end.
        var listed: String { path + (isFolder ? "/" : "") }
    }

    /// Carries (or, when ``removes``, leaves out) every unknown entry; returns their paths in path order, a
    /// folder once with a `/` at its end. Nothing when the installed tree has no record. The entries are all
    /// found before any is carried, so a record that falsely claims path order is found out first.
    /// - Throws: `.conflict` when the new tree uses the name of an unknown file and removal was not asked
    ///   for; `.io` when an entry cannot be carried.
    func carry() throws(AssetPackError) -> [String] {
        let found = try find()
        if !removes {
            for unknown in found {
                var folder = installed
                for name in unknown.components { folder = try io(folder.directory(name)) }
                try carry(unknown.entry, isFolder: unknown.isFolder, from: folder,
                          to: try newFolder(at: unknown.components, path: unknown.path), path: unknown.path)
            }
        }
        return Self.listed(found)
    }

    /// The paths of `found` in path order, as ``carry()`` returns them.
    static func listed(_ found: [Found]) -> [String] {
        found.map(\.listed).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Every unknown entry, changing nothing; none when the installed tree has no record.
    func find() throws(AssetPackError) -> [Found] {
        guard let record = OrderedRecord(tree: installed) else { return [] }
        var found: [Found] = []
        let paths = RecordedPaths(record)
        try visit(installed, at: [], prefix: "", record: paths, found: &found)
        if !paths.readToEndInOrder() {
            guard let sorted = OrderedRecord(tree: installed, sorting: true) else { return [] }
            let again = RecordedPaths(sorted)
            found = []
            try visit(installed, at: [], prefix: "", record: again, found: &found)
            guard again.readToEndInOrder() else { return [] }  // not a record's text: nothing is known to be the user's
        }
        return found
    }

    /// Visits the installed folder `folder` at `components` below the tree's top (`prefix`: their path, with a
    /// `/` at its end, or empty at the top), its names in byte order (the record's path order).
    private func visit(_ folder: Descriptor, at components: [FileName], prefix: String, record: RecordedPaths,
                       found: inout [Found]) throws(AssetPackError) {
        let names = try io(folder.names()).sorted { ($0.string ?? "").utf8.lexicographicallyPrecedes(($1.string ?? "").utf8) }
        for entry in names {
            if prefix.isEmpty && entry.string == StagingNames.recordDirectory { continue }
            let path = prefix + entry.description
            if let name = entry.string {
                let bytes = Array((prefix + name).utf8)
                if record.isEntry(bytes) { continue }
                if record.isFolder(bytes) {  // the record's name, whatever is there now (a planted link is not followed)
                    if let inner = try? folder.directory(name) {
                        try visit(inner, at: components + [entry], prefix: path + "/", record: record, found: &found)
                    }
                    continue
                }
            }
            found.append(Found(components: components, entry: entry, path: path,
                               isFolder: try io(folder.status(entry))?.kind == .directory))
        }
    }

    /// The folder of the new tree at `components` (`path`, for messages), made when the new version has none
    /// there (a folder it dropped that holds an unknown entry).
    private func newFolder(at components: [FileName], path: String) throws(AssetPackError) -> Descriptor {
        var current = staging
        for name in components {
            _ = try io(current.makeDirectory(name, mode: PermissionPolicy.defaultDirectory))
            guard try io(current.status(name))?.kind == .directory else { throw conflict(path) }
            current = try io(current.directory(name))
        }
        return current
    }

    /// Carries the unknown `entry` of `folder` into `target`.
    private func carry(_ entry: FileName, isFolder: Bool, from folder: Descriptor, to target: Descriptor,
                       path: String) throws(AssetPackError) {
        if isFolder {
            let made = try io(target.makeDirectory(entry, mode: PermissionPolicy.defaultDirectory))
            let isThere = try io(target.status(entry))?.kind == .directory
            guard isThere else { throw conflict(path) }
            let inner = try io(folder.directory(entry)), copy = try io(target.directory(entry))
            if made, let mode = try io(folder.status(entry))?.permissions { try io(copy.fd.setPermissions(mode, path: copy.path)) }
            for child in try io(inner.names()) {
                let isChildFolder = try io(inner.status(child))?.kind == .directory
                try carry(child, isFolder: isChildFolder, from: inner, to: copy, path: path + "/" + child.description)
            }
            return
        }
        if try io(target.status(entry)) != nil { throw conflict(path) }
        guard try io(folder.link(entry, in: target)) else {
            throw AssetPackError(.io, "\"\(path)\" is not assetpack's, and it could not be carried into the new version "
                                 + "(the file system refused a hard link); move it out of the destination, or allow its removal "
                                 + "(ExpansionOptions.removesUnknownEntries, --delete-unknown)", path: installed.child(path))
        }
    }

    /// The error for an unknown entry at `path` whose name the new tree uses.
    private func conflict(_ path: String) -> AssetPackError { Self.conflict(path, in: installed) }

    /// The error for the unknown entry at `path` of the installed tree `installed` whose name the new tree uses.
    static func conflict(_ path: String, in installed: Descriptor) -> AssetPackError {
        AssetPackError(.conflict, "\"\(path)\" is not assetpack's, and the new version puts a file of its own there; move it "
                       + "out of the destination, or allow its removal (ExpansionOptions.removesUnknownEntries, --delete-unknown)",
                       path: installed.child(path))
    }
}
