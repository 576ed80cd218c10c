import AssetPackZip

/// Plans one archive found in a tree as unzipped into `directory` (its parent folder): each entry name
/// must be a safe relative path, symlinks are refused unless allowed, FIFOs and devices always are, and
/// encrypted or unsupported entries fail here, before anything is written.
struct ArchivePlanner {
    let source: any AssetSource
    let options: ExpansionOptions

    func unpack(_ archivePath: AssetPath, into directory: AssetPath, builder: inout PlanBuilder) throws(AssetPackError) {
        let handle = ArchiveHandle(source: source, path: archivePath, limits: options.limits)
        let archive = try handle.archive()
        let origin = archivePath.string
        for entry in archive.entries {
            let target = try place(entry, under: directory, archive: origin)
            if target.isRoot { continue }
            switch entry.kind {
            case .directory:
                try builder.add(.directory(target, permissions: PermissionPolicy.directory(entry.permissions)), from: origin)
            case .file:
                try ArchiveEntryPolicy.checkReadable(entry, archive: origin)
                try ArchiveEntryPolicy.checkDeclaredRatio(entry, limits: options.limits, archive: origin)
                try builder.add(ExpansionItem(path: target, kind: .file, size: entry.uncompressedSize, crc32: entry.crc32,
                                              permissions: PermissionPolicy.file(entry.permissions),
                                              origin: .archiveEntry(handle, entryName: entry.name)), from: origin)
            case .symlink:
                let link = try symlinkTarget(entry, archive: archive, origin: origin)
                try builder.add(ExpansionItem(path: target, kind: .symlink, permissions: 0o777, symlinkTarget: link,
                                              origin: .archiveEntry(handle, entryName: entry.name)), from: origin)
            case .special:
                throw ArchivePlanner.specialRefused(entry, archive: origin)
            }
        }
    }

    /// `directory` + the entry's validated name (see ``ArchiveEntryPolicy``).
    private func place(_ entry: ZipEntry, under directory: AssetPath, archive: String) throws(AssetPackError) -> AssetPath {
        let relative = try ArchiveEntryPolicy.path(of: entry, archive: archive)
        var target = directory
        do {
            for component in relative.components { target = try target.appending(component) }
        } catch {
            throw AssetPackError(.unsafePath, "entry \(AssetPath.quoted(entry.name)): \(error.message)", path: archive)
        }
        return target
    }

    private func symlinkTarget(_ entry: ZipEntry, archive: ZipArchive, origin: String) throws(AssetPackError) -> String {
        guard options.allowSymlinks else { throw ArchivePlanner.symlinkRefused(entry, archive: origin) }
        let bytes: [UInt8]
        do { bytes = try archive.contents(of: entry, limit: 4096) } catch { throw AssetPackError(error.inArchive(origin)) }
        let target = String(decoding: bytes, as: UTF8.self)
        if bytes.isEmpty || bytes.first == UInt8(ascii: "/") || bytes.contains(0) || bytes.contains(UInt8(ascii: "\\")) {
            throw AssetPackError(.symlink, "entry \(AssetPath.quoted(entry.name)) links to \(AssetPath.quoted(target)), "
                                 + "which is not a relative path inside the destination", path: origin)
        }
        return target
    }

    /// The error for a link entry when links are not allowed.
    /// The error for a FIFO, socket or device entry, which is never created.
    static func specialRefused(_ entry: ZipEntry, archive: String) -> AssetPackError {
        AssetPackError(.unsupported, "entry \(AssetPath.quoted(entry.name)) is a FIFO, socket or device; those are never created",
                       path: archive)
    }

    static func symlinkRefused(_ entry: ZipEntry, archive: String) -> AssetPackError {
        AssetPackError(.symlink, "entry \(AssetPath.quoted(entry.name)) is a symbolic link; links are created only when allowed "
                       + "(ExpansionOptions.allowSymlinks, --allow-symlinks)", path: archive)
    }
}
