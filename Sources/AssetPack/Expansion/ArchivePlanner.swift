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
                try checkReadable(entry, archive: origin)
                try builder.add(ExpansionItem(path: target, kind: .file, size: entry.uncompressedSize, crc32: entry.crc32,
                                              permissions: PermissionPolicy.file(entry.permissions),
                                              origin: .archiveEntry(handle, entryName: entry.name)), from: origin)
            case .symlink:
                let link = try symlinkTarget(entry, archive: archive, origin: origin)
                try builder.add(ExpansionItem(path: target, kind: .symlink, permissions: 0o777, symlinkTarget: link),
                                from: origin)
            case .special:
                throw AssetPackError(.unsupported, "entry \"\(entry.name)\" is a FIFO, socket or device; those are never created",
                                     path: origin)
            }
        }
    }

    /// `directory` + the entry's validated name.
    private func place(_ entry: ZipEntry, under directory: AssetPath, archive: String) throws(AssetPackError) -> AssetPath {
        let relative: AssetPath
        do {
            relative = try AssetPath(entry.name)
        } catch {
            throw AssetPackError(.unsafePath, "entry \(error.message)", path: archive)
        }
        var target = directory
        for component in relative.components { target = try target.appending(component) }
        return target
    }

    private func checkReadable(_ entry: ZipEntry, archive: String) throws(AssetPackError) {
        if entry.isEncrypted {
            throw AssetPackError(.archive, "entry \"\(entry.name)\" is encrypted; encrypted entries are not supported", path: archive)
        }
        if entry.method != .stored && entry.method != .deflate {
            throw AssetPackError(.archive, "entry \"\(entry.name)\" uses compression method \(entry.method), which is not supported",
                                 path: archive)
        }
    }

    private func symlinkTarget(_ entry: ZipEntry, archive: ZipArchive, origin: String) throws(AssetPackError) -> String {
        guard options.allowSymlinks else {
            throw AssetPackError(.symlink, "entry \"\(entry.name)\" is a symbolic link; links are created only when allowed (--allow-symlinks)",
                                 path: origin)
        }
        let bytes: [UInt8]
        do { bytes = try archive.contents(of: entry, limit: 4096) } catch { throw AssetPackError(error.inArchive(origin)) }
        let target = String(decoding: bytes, as: UTF8.self)
        if target.isEmpty || target.hasPrefix("/") || bytes.contains(0) || target.contains("\\") {
            throw AssetPackError(.symlink, "entry \"\(entry.name)\" links to \"\(target)\", which is not a relative path inside the destination",
                                 path: origin)
        }
        return target
    }
}
