import AssetPackSystem

/// What the installed tree holds that its record does not know: files and folders the app or the user put
/// into the destination. An upgrade (or a repair) never deletes them unless asked
/// (``ExpansionOptions/removesUnknownEntries``): by default each is carried into the new tree before it is
/// switched in — anything but a folder hard-linked (its data stays where it is, under its old name too, until
/// the old tree is removed after the switch, so a failed install loses nothing), a folder made anew and filled
/// the same way — and listed in ``ExpansionResult/unknownKept``. With the option, they are left out of the new
/// tree, so the switch removes them, and listed in ``ExpansionResult/unknownDeleted``. A name that the new tree
/// itself uses for a file is a conflict: refused, naming the path, unless removal was asked for.
///
/// The walk reads each folder of the installed tree once and looks each name up in the record's index
/// (``RecordedEntryIndex``); only unknown names are looked at further. Recorded folders are entered (an
/// unknown file may lie inside one), recorded files and links are not. Names that are not UTF-8 are carried by
/// their bytes.
struct UnknownEntries {
    /// The installed tree.
    let installed: Descriptor
    /// Its record.
    let record: RecordedEntryIndex
    /// The new tree, complete but for them.
    let staging: Descriptor
    /// Leave them out of the new tree instead of carrying them.
    let removes: Bool

    /// Carries (or, when ``removes``, leaves out) every unknown entry; returns their paths in path order, a
    /// folder once with a `/` at its end.
    /// - Throws: `.conflict` when the new tree uses the name of an unknown file and removal was not asked
    ///   for; `.io` when an entry cannot be carried.
    func carry() throws(AssetPackError) -> [String] {
        var found: [String] = []
        try visit(installed, at: [], prefix: "", found: &found)
        return found.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Visits the installed folder `folder` at `components` below the tree's top (`prefix`: their path, with a
    /// `/` at its end, or empty at the top).
    private func visit(_ folder: Descriptor, at components: [FileName], prefix: String,
                       found: inout [String]) throws(AssetPackError) {
        for entry in try io(folder.names()) {
            if prefix.isEmpty && entry.string == StagingNames.recordDirectory { continue }
            let path = prefix + entry.description
            if let name = entry.string, let position = lookUp(prefix + name) {
                guard record[position].kind == .directory || record[position].kind == .impliedDirectory,
                      let inner = try? folder.directory(name) else { continue }
                try visit(inner, at: components + [entry], prefix: path + "/", found: &found)
                continue
            }
            let isFolder = try io(folder.status(entry))?.kind == .directory
            found.append(path + (isFolder ? "/" : ""))
            if removes { continue }
            try carry(entry, isFolder: isFolder, from: folder, to: try newFolder(at: components, path: prefix), path: path)
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
    private func conflict(_ path: String) -> AssetPackError {
        AssetPackError(.conflict, "\"\(path)\" is not assetpack's, and the new version puts a file of its own there; move it "
                       + "out of the destination, or allow its removal (ExpansionOptions.removesUnknownEntries, --delete-unknown)",
                       path: installed.child(path))
    }

    /// The record's position of `path`, or nil.
    private func lookUp(_ path: String) -> Int? {
        var bytes = Array(path.utf8)
        return bytes.withUnsafeMutableBytes { record.find(UnsafeRawBufferPointer($0)) }
    }
}
