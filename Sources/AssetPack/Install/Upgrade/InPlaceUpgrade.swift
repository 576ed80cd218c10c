import AssetPackSystem

/// An upgrade applied to the installed tree itself (``ExpansionOptions/upgradesInPlace``). The staging tree
/// holds only what the new version changes — its written files and its renamed and moved files (linked), all in
/// one flat folder (``StagingLayout/flat``), and its links — with the new record and stamp, complete and (durable)
/// on the device. Then:
///
/// 1. ``begin(_:removing:durable:)`` writes ``StagingNames/applyingMarkerFile`` into the staging tree and
///    (durable) flushes it all with one `syncfs`: from then on every call finishes the upgrade before anything
///    else (``isPending(_:in:)``, ``apply()``).
/// 2. The installed tree's stamp is removed (flushed, durable): the tree is not up to date until step 6.
/// 3. What the installed record lists and the new one does not is removed — files and links, then folders
///    (deepest first, only when empty: an unknown entry keeps its folder) —, and the unknown entries the
///    marker lists; the marker then says so, so a second run never removes what step 5 moved in.
/// 4. The new record's folders are made, or given their permissions.
/// 5. Every link of the staging tree, then every file of its flat folder, is moved to its place (one `renameat`,
///    replacing the old one).
/// 6. The record moves in (`installed.json.gz` last), the stamp is written, the tree flushed (one `syncfs`,
///    durable), and the staging tree removed (its marker first).
///
/// Every step can run again after a kill: what was removed or moved is not there to remove or move again,
/// and step 6 is skipped up to the stamp once `installed.json.gz` has moved. The record's paths are checked
/// like any path (``AssetPath``) and every folder is opened without following a link, so nothing is written
/// outside the destination. The price, stated where the option is: while it runs, the destination is a mix of
/// both versions.
final class InPlaceUpgrade {
    let parent: Descriptor
    /// The destination's name in `parent`.
    let name: String
    let durable: Bool
    /// Tests only: kill the process once this many entries were changed (``InstallTestSeam``).
    var killAfter: Int?
    private var changed = 0

    init(parent: Descriptor, name: String, durable: Bool, killAfter: Int? = nil) {
        self.parent = parent
        self.name = name
        self.durable = durable
        self.killAfter = killAfter
    }

    /// The marker's first line before step 3 has run; its other lines are the unknown entries to remove, each the
    /// bytes of its path in hex (a name that is not UTF-8 has no exact text).
    private static let removing = "remove"
    /// The marker's only line once step 3 has run.
    private static let moving = "move"

    /// Starts the upgrade of the complete staging tree `staging` (its files, record and stamp written, not yet
    /// flushed): `unknown`, the installed tree's unknown entries to remove. Durable, one `syncfs` then puts the
    /// whole staging tree on the device, the marker with it.
    static func begin(_ staging: Descriptor, removing unknown: [UnknownEntries.Found], durable: Bool) throws(AssetPackError) {
        let lines = unknown.map { entry in
            Array((entry.components + [entry.entry]).map(\.bytes).joined(separator: [UInt8(ascii: "/")])).withUnsafeBytes(lowercaseHex)
        }
        try mark(staging, ([removing] + lines).map { $0 + "\n" }.joined(), durable: false)
        if durable { try io(staging.fd.syncFileSystem(path: staging.path)) }
    }

    /// True when the staging tree beside the destination `name` holds an upgrade in place that was begun and
    /// not finished.
    static func isPending(_ name: String, in parent: Descriptor) -> Bool {
        guard let staging = try? parent.directory(StagingNames.staging(for: name)),
              let folder = try? staging.directory(StagingNames.recordDirectory) else { return false }
        return (try? folder.status(StagingNames.applyingMarkerFile))??.kind == .file
    }

    /// Applies the begun upgrade to the destination (steps 2–6), or finishes one an earlier call began.
    func apply() throws(AssetPackError) {
        let stagingName = StagingNames.staging(for: name)
        let staging = try io(parent.directory(stagingName))
        let tree = try io(parent.directory(name))
        let newRecord = try io(staging.directory(StagingNames.recordDirectory))
        let marker = try SmallFiles.read(StagingNames.applyingMarkerFile, in: newRecord, limit: InstallRecord.maxRecordSize) ?? []
        guard let stampBytes = try SmallFiles.read(StagingNames.stampFile, in: newRecord, limit: 4096) else {
            throw AssetPackError(.io, "an upgrade in place cannot be finished: its staging tree lost its stamp; remove the "
                                 + "destination to install afresh", path: staging.path)
        }
        let stamp = InstallRecord.text(stampBytes)
        let oldRecord = try io(tree.directory(StagingNames.recordDirectory, creatingWith: PermissionPolicy.defaultDirectory))
        try io(oldRecord.remove(StagingNames.stampFile))
        if durable { try io(oldRecord.fd.sync(path: oldRecord.path)) }
        if try io(newRecord.status(StagingNames.recordFile)) != nil {
            guard let record = OrderedRecord(tree: staging) else {
                throw AssetPackError(.io, "an upgrade in place cannot be finished: the new record is not readable", path: newRecord.path)
            }
            let lines = String(decoding: marker, as: UTF8.self).split(separator: "\n").map(String.init)
            // Removing what the new record does not list can run again (nothing is moved there); removing the
            // unknown entries cannot (a file moved in may have taken the name), so the marker records it is done.
            if let installed = OrderedRecord(tree: tree) { try removeDropped(installed, keeping: RecordedPathSet(record), from: tree) }
            if lines.first == Self.removing, lines.count > 1 {
                for path in lines.dropFirst() { try removeUnknown(path, from: tree) }
                try Self.mark(staging, Self.moving + "\n", durable: durable)
            }
            try makeFolders(record, in: tree)
            try move(from: staging, to: tree, isTop: true)
            try moveStagedFiles(record, from: newRecord, to: tree)
            try moveRecord(from: newRecord, to: oldRecord)
        }
        // The stamp last, flushed with everything before it by one `syncfs`: until that returns, the marker stays.
        try InstallRecord.writeStamp(stamp, into: tree, durable: false)
        if durable { try io(tree.fd.syncFileSystem(path: tree.path)) }
        // The marker first: a staging tree half removed is then an ordinary leftover, not an upgrade to finish.
        try io(newRecord.remove(StagingNames.applyingMarkerFile))
        try io(TreeRemoval.remove(stagingName, in: parent))
    }

    /// Step 3: removes what the installed record (`installed`) lists and `wanted` does not.
    private func removeDropped(_ installed: OrderedRecord, keeping wanted: RecordedPathSet,
                                        from tree: Descriptor) throws(AssetPackError) {
        let cursor = DirectoryCursor(root: tree)
        var files = installed.files(), links = installed.links(), folders = installed.directories()
        var droppedFolders: [AssetPath] = []
        func drop(_ bytes: [UInt8]) throws(AssetPackError) {
            guard !wanted.isEntry(bytes[...]), let path = try? AssetPath(String(decoding: bytes, as: UTF8.self)),
                  let folder = cursor.existingParent(ofPath: path.string) else { return }
            try removeEntry(path.name, in: folder)
        }
        while let head = files.head { try drop(head.path); files.advance() }
        while let head = links.head { try drop(head.path); links.advance() }
        while let head = folders.head {
            if !wanted.isFolder(head.path[...]), let path = try? AssetPath(String(decoding: head.path, as: UTF8.self)) {
                droppedFolders.append(path)
            }
            folders.advance()
        }
        // Deepest first; a folder that still holds something (an unknown entry) stays.
        for path in droppedFolders.sorted(by: { $0.components.count > $1.components.count }) {
            guard let folder = cursor.existingParent(ofPath: path.string), let status = try io(folder.status(path.name)) else { continue }
            if status.kind != .directory { try removeEntry(path.name, in: folder); continue }
            if try io(folder.removeFolderIfEmpty(path.name)) { try counted() }
        }
    }

    /// Step 3: removes the unknown entry whose path's bytes `line` holds in hex, whatever it holds; never through
    /// a link, and nothing for a line that is not such a path.
    private func removeUnknown(_ line: String, from tree: Descriptor) throws(AssetPackError) {
        let hex = Array(line.utf8)
        guard hex.count % 2 == 0 else { return }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return }
            bytes.append(byte)
        }
        let names = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { FileName(bytes: Array($0)) }
        guard let last = names.last, !names.contains(where: { $0.bytes.isEmpty || $0.isDotOrDotDot }) else { return }
        var folder = tree
        for name in names.dropLast() {
            guard let inner = try? folder.directory(name) else { return }
            folder = inner
        }
        guard try io(folder.status(last)) != nil else { return }
        try io(TreeRemoval.remove(last, in: folder))
        try counted()
    }

    /// Removes `name` from `folder`: a file or a link, or a folder with all it holds.
    private func removeEntry(_ name: String, in folder: Descriptor) throws(AssetPackError) {
        guard let status = try io(folder.status(name)) else { return }
        if status.kind == .directory { try io(TreeRemoval.remove(name, in: folder)) } else { try io(folder.remove(name)) }
        try counted()
    }

    /// Removes the folder `name` of `folder` where a file or link of the new version goes: one the user put in the
    /// place of an installed file (an unknown folder there was refused before the upgrade began), dropped as a
    /// switch drops it. A rename cannot replace a folder with a file.
    private func clearFolder(_ name: String, in folder: Descriptor) throws(AssetPackError) {
        guard try io(folder.status(name))?.kind == .directory else { return }
        try removeEntry(name, in: folder)
    }

    /// Step 4: makes the folders of the new record (`record`) in `tree`, or gives an existing one its permissions.
    /// Anything else at a folder's path is in the place of the installed version's folder (an unknown entry there
    /// was refused before the upgrade began): removed, as a switch drops it.
    private func makeFolders(_ record: OrderedRecord, in tree: Descriptor) throws(AssetPackError) {
        let cursor = DirectoryCursor(root: tree)
        var folders = record.directories()
        while let head = folders.head {
            defer { folders.advance() }
            guard let path = try? AssetPath(head.entry.path) else { continue }
            let parent = try io(cursor.parent(ofPath: path.string))
            if let status = try io(parent.status(path.name)), status.kind != .directory { try removeEntry(path.name, in: parent) }
            _ = try io(parent.makeDirectory(path.name, mode: head.entry.mode))
            let folder = try io(parent.directory(path.name))
            if try io(folder.status()).permissions != head.entry.mode {
                try io(folder.fd.setPermissions(head.entry.mode, path: folder.path))
            }
        }
    }

    /// Step 5: moves every link (and file: a staging tree of an older version) of the staging folder `from` into
    /// the destination's folder `to`, the folders' contents first made below it (`isTop`: the staging tree itself,
    /// whose record stays); each staging folder emptied is removed at once, so the flush that ends the upgrade
    /// carries its removal.
    private func move(from staging: Descriptor, to tree: Descriptor, isTop: Bool) throws(AssetPackError) {
        for entry in try io(staging.names()) {
            guard let name = entry.string, !name.hasPrefix(StagingNames.temporaryPrefix),
                  !(isTop && name == StagingNames.recordDirectory), let status = try io(staging.status(name)) else { continue }
            if status.kind == .directory {
                _ = try io(tree.makeDirectory(name, mode: PermissionPolicy.defaultDirectory))
                try move(from: try io(staging.directory(name)), to: try io(tree.directory(name)), isTop: false)
                _ = try io(staging.removeFolderIfEmpty(name))
            } else {
                try clearFolder(name, in: tree)
                try io(staging.rename(name, to: name, in: tree))
                try counted()
            }
        }
    }

    /// Step 5, for the files: each is moved from the flat folder (``StagingNames/movedFilesFolder``) to the path
    /// of the new record (`record`) whose ``StagingLayout/flatName(_:)`` it has; the folder is removed once empty.
    private func moveStagedFiles(_ record: OrderedRecord, from newRecord: Descriptor, to tree: Descriptor) throws(AssetPackError) {
        guard try io(newRecord.status(StagingNames.movedFilesFolder))?.kind == .directory else { return }
        let folder = try io(newRecord.directory(StagingNames.movedFilesFolder))
        // By digest, not by name: a record of many files is hashed path by path, and no hex is written for each.
        var waiting = Set(try io(folder.names()).compactMap { $0.string.flatMap(SHA256Digest.init(hex:)) })
        let cursor = DirectoryCursor(root: tree)
        var files = record.files()
        while !waiting.isEmpty, let head = files.head {
            defer { files.advance() }
            guard let digest = waiting.remove(StagingLayout.flatDigest(head.entry.path)), let path = try? AssetPath(head.entry.path)
            else { continue }
            let parent = try io(cursor.parent(ofPath: path.string))
            try clearFolder(path.name, in: parent)
            try io(folder.rename(digest.hex, to: path.name, in: parent))
            try counted()
        }
        _ = try io(newRecord.removeFolderIfEmpty(StagingNames.movedFilesFolder))
    }

    /// Stages the renamed and moved files `files` of `plan` (by position; their installed paths in `movedFrom`):
    /// each hard-linked from the installed tree into ``StagingNames/movedFilesFolder`` of `staging` under
    /// ``StagingLayout/flatName(_:)`` of its new path. Returns those linked and the positions that must be written instead
    /// (the installed file is gone, or the file system refused the link).
    static func stageMoved(_ files: [Int: StagedFile], of plan: ExpansionPlan, from installed: Descriptor, movedFrom: [Int: String],
                           into staging: Descriptor) throws(AssetPackError) -> (linked: [Int: StagedFile], failed: [Int]) {
        guard !files.isEmpty else { return ([:], []) }
        guard let folder = try StagingLayout.flat.flatFolder(in: staging, making: true) else { return ([:], files.keys.sorted()) }
        let cursor = DirectoryCursor(root: installed)
        var linked: [Int: StagedFile] = [:], failed: [Int] = []
        for (position, file) in files.sorted(by: { $0.key < $1.key }) {
            let name = StagingLayout.flatName(plan.items[position].path.string)
            try io(folder.remove(name))  // an interrupted call's
            guard let old = movedFrom[position].flatMap({ try? AssetPath($0) }), let parent = cursor.existingParent(ofPath: old.string),
                  try io(parent.link(old.name, to: name, in: folder)) else {
                failed.append(position)
                continue
            }
            linked[position] = file
        }
        return (linked, failed)
    }

    /// Step 6: moves the record's files into the installed tree's record folder, the record last; a file the
    /// new record has not (the plain record of an older install, the source of an archive, the flushed marker) is
    /// removed from it first.
    private func moveRecord(from staging: Descriptor, to installed: Descriptor) throws(AssetPackError) {
        for name in [StagingNames.plainRecordFile, StagingNames.sourceFile, StagingNames.flushedMarkerFile, StagingNames.recordFile] {
            if try io(staging.status(name)) != nil {
                try io(staging.rename(name, to: name, in: installed))
            } else {
                try io(installed.remove(name))
            }
        }
    }

    /// Counts one change to the installed tree, and kills the process where a test asks.
    private func counted() throws(AssetPackError) {
        changed += 1
        if let killAfter, changed >= killAfter { CurrentProcess.killImmediately() }
    }

    /// Writes the marker `text` into the staging tree's record folder (flushed with the folder, durable).
    private static func mark(_ staging: Descriptor, _ text: String, durable: Bool) throws(AssetPackError) {
        let folder = try io(staging.directory(StagingNames.recordDirectory))
        try SmallFiles.write(Array(text.utf8), to: StagingNames.applyingMarkerFile, in: folder, durable: durable)
        if durable { try io(folder.fd.sync(path: folder.path)) }
    }

    /// Throws `.conflict` when the new tree, whose record is in `staging`, puts a file or link where one of the
    /// installed tree's unknown entries (`unknown`, paths from ``UnknownEntries``) is, or below it, or a folder
    /// where an unknown file is: what a switch would refuse too, unless their removal was asked for.
    static func checkConflicts(_ unknown: [String], newRecordIn staging: Descriptor, installed: Descriptor) throws(AssetPackError) {
        guard !unknown.isEmpty, let record = OrderedRecord(tree: staging) else { return }
        let wanted = RecordedPathSet(record)
        for listed in unknown {
            let isFolder = listed.hasSuffix("/")
            let path = Array((isFolder ? String(listed.dropLast()) : listed).utf8)
            var clash = false
            for (index, byte) in path.enumerated() where byte == UInt8(ascii: "/") && !clash {
                clash = wanted.isEntry(path[..<index])
            }
            if clash { throw UnknownEntries.conflict(String(decoding: path, as: UTF8.self), in: installed) }
            try checkConflict(path, isFolder: isFolder, wanted: wanted, in: installed)
        }
    }

    /// Throws `.conflict` when the new version puts something at the unknown entry `path` that it cannot share
    /// with it: anything where a file is, a file or link where a folder is, or the same below a folder both have.
    private static func checkConflict(_ path: [UInt8], isFolder: Bool, wanted: RecordedPathSet,
                                      in installed: Descriptor) throws(AssetPackError) {
        let text = String(decoding: path, as: UTF8.self)
        guard wanted.isEntry(path[...]) || (!isFolder && wanted.isFolder(path[...])) else {
            // A folder of the user's that the new version also has: what it holds must not clash either.
            guard isFolder, wanted.isFolder(path[...]), let components = try? AssetPath(text).components,
                  let folder = try? DirectoryCursor(root: installed).directory(components) else { return }
            for entry in try io(folder.names()) {
                guard let name = entry.string else { continue }
                let isInner = try io(folder.status(name))?.kind == .directory
                try checkConflict(path + Array(("/" + name).utf8), isFolder: isInner, wanted: wanted, in: installed)
            }
            return
        }
        throw UnknownEntries.conflict(text, in: installed)
    }
}

/// The paths of a record as two sets of 64-bit hashes: its files and links, and its folders with every folder
/// above an entry. A collision can only keep a dropped entry (never remove a wanted one).
struct RecordedPathSet {
    private var entries: Set<UInt64> = []
    private var folders: Set<UInt64> = []

    init(_ record: OrderedRecord) {
        var files = record.files(), links = record.links(), directories = record.directories()
        while let head = files.head { add(head.path, isFolder: false); files.advance() }
        while let head = links.head { add(head.path, isFolder: false); links.advance() }
        while let head = directories.head { add(head.path, isFolder: true); directories.advance() }
    }

    /// True when the record lists `path` as a file or a link.
    func isEntry(_ path: ArraySlice<UInt8>) -> Bool { entries.contains(Self.hash(path)) }

    /// True when the record lists `path` as a folder, or something below it.
    func isFolder(_ path: ArraySlice<UInt8>) -> Bool { folders.contains(Self.hash(path)) }

    private mutating func add(_ path: [UInt8], isFolder: Bool) {
        var rest = path[...]
        if !isFolder {
            entries.insert(Self.hash(rest))
            guard let slash = rest.lastIndex(of: UInt8(ascii: "/")) else { return }
            rest = rest[..<slash]
        }
        while !rest.isEmpty, folders.insert(Self.hash(rest)).inserted, let slash = rest.lastIndex(of: UInt8(ascii: "/")) {
            rest = rest[..<slash]
        }
    }

    private static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 { RecordedPaths.hash(bytes) }
}
