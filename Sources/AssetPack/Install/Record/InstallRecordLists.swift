import AssetPackSystem

/// The record of a staging tree (``InstallRecord``) as `installed.json.gz`: gathered a window of a plan at a time
/// (``add(_:checksums:)``) and written once the tree is complete (``write(into:source:stamp:)``). Each of its
/// three lists — folders, files, links — is a ``RecordListSpool`` (in memory up to ``defaultMemoryLimit``
/// bytes, beyond that in a temporary file), written in path order whatever order the windows came in.
final class InstallRecordLists {
    /// Bytes of a list kept in memory, by default, before it goes to its temporary file.
    static let defaultMemoryLimit = 1 << 20

    private let folder: Descriptor
    /// The staged files of the tree the record describes, where each file's inode and modification time are read.
    private let stagedFiles: StagedFileFolders
    private var directories: RecordListSpool
    private var files: RecordListSpool
    private var links: RecordListSpool

    /// Lists whose entries beyond `memoryLimit` bytes each go to temporary files in the record folder of `tree`,
    /// whose files are staged as `layout` says.
    init(tree: Descriptor, layout: StagingLayout = .tree, memoryLimit: Int = defaultMemoryLimit) throws(AssetPackError) {
        folder = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        stagedFiles = StagedFileFolders(staging: tree, layout: layout, flat: try layout.flatFolder(in: tree, making: true))
        directories = RecordListSpool(name: StagingNames.temporaryPrefix + "directories.json", memoryLimit: memoryLimit)
        files = RecordListSpool(name: StagingNames.temporaryPrefix + "files.json", memoryLimit: memoryLimit)
        links = RecordListSpool(name: StagingNames.temporaryPrefix + "links.json", memoryLimit: memoryLimit)
    }

    /// Adds every item of `plan` (one window, written into the tree), in path order, the files as `staged` (by
    /// item index) says: their CRC-32s, and the inode and modification time each has in the tree (read here, one
    /// `fstatat`, for a file whose step did not read them).
    func add(_ plan: ExpansionPlan, staged: ResultSlots<StagedFile>) throws(AssetPackError) {
        var json = InstallRecordJSON()
        // By index, not `for item in items`: copying each item whole (its origin, path and hashes) would
        // cost more than writing its line.
        for position in PlanOrder.positions(of: plan.items) {
            let file = staged[position]
            let onDisk = if let known = file?.onDisk { known } else { try onDisk(plan.items[position]) }
            Self.line(of: position, in: plan, crc32: file?.crc32, onDisk: onDisk, to: &json)
            try json.takeEntry { (object) throws(AssetPackError) in
                try plan.items[position].path.withUTF8 { path in
                    Result { () throws(AssetPackError) in
                        switch plan.items[position].kind {
                        case .directory: try directories.append(path: path, object: object, in: folder)
                        case .file: try files.append(path: path, object: object, in: folder)
                        case .symlink: try links.append(path: path, object: object, in: folder)
                        }
                    }
                }.get()
            }
        }
    }

    /// The inode and modification time of the file `item` in the tree; nil for anything else.
    private func onDisk(_ item: ExpansionItem) throws(AssetPackError) -> InstallRecordJSON.OnDisk? {
        guard item.kind == .file, let folder = stagedFiles.existingFolder(of: item.path),
              let status = try io(folder.status(stagedFiles.name(of: item.path))), status.kind == .file else { return nil }
        return StagedFile.onDisk(status)
    }

    /// The record's line for the item at `position` of `plan`, appended to `json`'s current list.
    private static func line(of position: Int, in plan: ExpansionPlan, crc32: UInt32?,
                             onDisk: InstallRecordJSON.OnDisk?, to json: inout InstallRecordJSON) {
        let items = plan.items
        switch items[position].kind {
        case .directory:
            json.directory(mode: items[position].permissions, path: items[position].path.string)
        case .file:
            json.file(crc32: crc32, mode: items[position].permissions, path: items[position].path.string,
                      digest: items[position].digest, size: items[position].size, onDisk: onDisk)
        case .symlink:
            json.link(path: items[position].path.string, target: items[position].symlinkTarget ?? "")
        }
    }

    /// Writes `installed.json.gz` (and the source file) from the lists into the record folder, before the
    /// tree is flushed (``InstallRecord/writeContents(into:source:stamp:json:)``), then empties and removes the
    /// temporary files (a flush of the file system then has none of their bytes to write).
    func write(into tree: Descriptor, source: String?, stamp: String) throws(AssetPackError) {
        try InstallRecord.writeContents(into: tree, source: source, stamp: stamp) { (emit) throws(AssetPackError) in
            var json = InstallRecordJSON()
            json.begin(directories: true, inPathOrder: true,
                       counts: InstallRecord.Counts(directories: directories.count, files: files.count, links: links.count))
            try json.handOverAll(to: emit)
            try directories.emit(to: emit, from: folder)
            json.beginFiles(afterDirectories: true)
            try json.handOverAll(to: emit)
            try files.emit(to: emit, from: folder)
            json.endFiles(format: InstallRecord.currentFormat, links: true)
            try json.handOverAll(to: emit)
            try links.emit(to: emit, from: folder)
            try json.end(afterLinks: true, source: source, stamp: stamp, to: emit)
        }
        directories.discard()
        files.discard()
        links.discard()
        try Self.removeTemporaries(in: folder)
    }

    /// Removes the temporary files of the lists from the record folder `folder` (left by an interrupted run).
    static func removeTemporaries(in folder: Descriptor) throws(AssetPackError) {
        for name in ["directories.json", "files.json", "links.json"] { try io(folder.remove(StagingNames.temporaryPrefix + name)) }
    }
}

/// A file put into a staging tree, as its record line needs it: its CRC-32 and, where the step that put it there
/// read them anyway (a link's proof, a resume's check, a written file's descriptor), its inode and modification
/// time.
struct StagedFile: Sendable {
    var crc32: UInt32
    var onDisk: InstallRecordJSON.OnDisk? = nil

    /// The inode and modification time the record keeps of a file with `status`; nil before 1970.
    static func onDisk(_ status: FileStatus) -> InstallRecordJSON.OnDisk? {
        status.modifiedNanoseconds >= 0 ? (status.inode, UInt64(status.modifiedNanoseconds)) : nil
    }
}
