import AssetPackSystem
import AssetPackZip

/// Resumes an interrupted install: checks what the earlier call left in the staging tree against the plan,
/// a window at a time (``check(_:)``), and at the end removes whatever no window planned (``sweep()``).
///
/// A file is kept only when it is a regular file with no other name (a link count of 1: a hard link planted
/// in staging would let whoever owns its other name change the asset), of the planned size and permissions,
/// and its CRC-32, read once more, is the planned one (a crash or power loss could have left it partial).
/// When the plan does not know a file's CRC (a folder source), the source file is read for it. A
/// block-indexed file left unfinished beside its ``BlockJournal`` is kept as partial, with the blocks its
/// journal records: the fill continues it (and checks those blocks again).
/// Everything else at a planned path is removed before the window is written, and everything no window planned
/// is removed from each folder once the plan has left it (plans come folder by folder: a whole plan in path order,
/// a windowed one with each folder's entries in one run), so only the names planned in the open folders are held.
///
/// In the flat layout of an upgrade in place (``StagingLayout/flat``) a file is looked for in the flat folder, and
/// anything at its path is removed (an install that switches left it: an upgrade in place would move it in
/// unchecked). What the flat folder holds for no planned file is never moved in, and goes with the staging tree.
final class ResumeCheck {
    private let root: Descriptor
    private let folders: DirectoryCursor
    private let layout: StagingLayout
    /// The flat folder, in the flat layout when there is one.
    private let flat: Descriptor?
    /// False for a dry run: what cannot be used is left in place (and not counted).
    private let removes: Bool
    /// The folders that hold the last item checked, from the root (`""`) down, each with the hashes of the names
    /// planned in it so far.
    private var open: [(path: String, names: Set<Int>)] = [("", [])]
    /// Folders the plan left before it planned anything in them: it may come back to them (an archiver that walks
    /// breadth first states a folder's subfolders before it fills each one); swept at the end when it does not.
    private var leftEmpty: Set<String> = []
    /// The hashes of the folders swept: one the plan comes back to is not swept again (what was planned in it
    /// before would go).
    private var swept: Set<Int> = []

    /// What an interrupted run left that can be used, in one window.
    struct Outcome {
        /// Complete, verified files by item index.
        var kept: [Int: StagedFile] = [:]
        /// Unfinished block-indexed files: the blocks recorded as written, by item index.
        var partial: [Int: Set<Int>] = [:]
    }

    /// A check of the staging tree `root`, whose files are staged as `layout` says; with `removes` false (a dry
    /// run), one that removes nothing.
    init(root: Descriptor, removes: Bool = true, layout: StagingLayout = .tree) throws(AssetPackError) {
        self.root = root
        self.removes = removes
        self.layout = layout
        folders = DirectoryCursor(root: root)
        flat = try layout.flatFolder(in: root, making: false)
    }

    /// The CRC-32 the file `item` of `plan` must have: the plan's, or its source file's, read.
    private static func expectedCRC(of item: ExpansionItem, in plan: ExpansionPlan) throws(AssetPackError) -> UInt32 {
        if let crc = item.crc32 { return crc }
        let (stream, origin) = try ItemSource.open(item, in: plan.source)
        return try StreamMeasure.measure(stream, name: origin.description).crc32
    }

    /// Checks the entries at the paths of `plan` (one window); removes those that cannot be used.
    func check(_ plan: ExpansionPlan) throws(AssetPackError) -> Outcome {
        let cursor = DirectoryCursor(root: root)
        var outcome = Outcome()
        // The last folder found missing: the items below it (they come in a row) are not looked for one by one.
        var missing: Substring?
        for position in plan.items.indices {
            let item = plan.items[position]
            let parent = item.path.string[..<(item.path.string.lastIndex(of: "/") ?? item.path.string.startIndex)]
            try enter(parent)
            open[open.count - 1].names.insert(Self.hash(item.path.name[...]))
            if item.kind == .directory { try enter(item.path.string[...]) }
            if layout == .flat, item.kind == .file {
                if let flat { try examine(item, at: position, of: plan, named: layout.name(of: item.path), in: flat, into: &outcome) }
                if removes, let folder = cursor.existingParent(ofPath: item.path.string), try io(folder.status(item.path.name)) != nil {
                    try io(TreeRemoval.remove(item.path.name, in: folder))
                }
                continue
            }
            if let missing, parent == missing || parent.hasPrefix(missing + "/") { continue }
            guard let folder = cursor.existingParent(ofPath: item.path.string) else {
                missing = parent
                continue
            }
            try examine(item, at: position, of: plan, named: item.path.name, in: folder, into: &outcome)
        }
        return outcome
    }

    /// Keeps what `folder` holds as `name` for the item at `position` of `plan` when it can be used (a folder for a
    /// folder; a whole or partial file for a file, in `outcome`); removes it otherwise.
    private func examine(_ item: ExpansionItem, at position: Int, of plan: ExpansionPlan, named name: String, in folder: Descriptor,
                         into outcome: inout Outcome) throws(AssetPackError) {
        guard let status = try io(folder.status(name)) else { return }
        switch (item.kind, status.kind) {
        case (.directory, .directory):
            return
        case (.file, .file) where status.links == 1 && status.permissions == item.permissions:
            // A partial file is never longer than planned: trailing bytes would survive its completion.
            if let blocks = item.journaledBlockCount, status.size <= item.size,
               let journal = try BlockJournal.open(for: name, in: folder),
               case let written = try journal.writtenBlocks(count: blocks), !written.isEmpty {
                outcome.partial[position] = written
                return
            }
            if status.size == item.size, let crc = try checksum(name, in: folder), try crc == Self.expectedCRC(of: item, in: plan) {
                outcome.kept[position] = StagedFile(crc32: crc, onDisk: StagedFile.onDisk(status))
                return
            }
        default:
            break
        }
        if removes { try io(TreeRemoval.remove(name, in: folder)) }
    }

    /// Makes the folder `path` the deepest open one: sweeps the open folders that do not hold it (the plan has left
    /// them), and opens those between.
    private func enter(_ path: Substring) throws(AssetPackError) {
        while open.count > 1, case let last = open[open.count - 1].path, !(path == last || path.hasPrefix(last + "/")) {
            let (left, names) = open.removeLast()
            if names.isEmpty {
                leftEmpty.insert(left)
            } else {
                try sweep(left, keeping: names)
            }
        }
        while case let deepest = open[open.count - 1].path, path.utf8.count > deepest.utf8.count {
            let rest = path.utf8.dropFirst(deepest.isEmpty ? 0 : deepest.utf8.count + 1)
            let name = Substring(rest.prefix { $0 != AssetPath.slash })
            open[open.count - 1].names.insert(Self.hash(name))
            let folder = deepest.isEmpty ? String(name) : deepest + "/" + name
            leftEmpty.remove(folder)
            open.append((folder, []))
        }
    }

    /// Removes from the staging tree everything that no window planned, in the folders still open and those the
    /// plan left empty: stray names, names that are not UTF-8 (none the plan wrote, see `FileName`),
    /// temporaries and journals left over. The record folder at the top is the install's own (its lists are
    /// being gathered there).
    func sweep() throws(AssetPackError) {
        while let (path, names) = open.popLast() { try sweep(path, keeping: names) }
        for path in leftEmpty.sorted() { try sweep(path, keeping: []) }
    }

    /// Removes from the folder `path` of the staging tree (when there) every name whose hash is not in `names`.
    private func sweep(_ path: String, keeping names: Set<Int>) throws(AssetPackError) {
        let components = path.isEmpty ? [] : path.split(separator: "/").map(String.init)
        guard removes, swept.insert(Self.hash(path[...])).inserted, let folder = folders.existingDirectory(components) else { return }
        for entry in try io(folder.names()) {
            if path.isEmpty && entry.string == StagingNames.recordDirectory { continue }
            if let name = entry.string, names.contains(Self.hash(name[...])), !name.hasPrefix(StagingNames.temporaryPrefix) { continue }
            try io(TreeRemoval.remove(entry, in: folder))
        }
    }

    /// A hash of the path's bytes (`String`'s own hash would take a decomposed name for its composed twin).
    private static func hash(_ name: Substring) -> Int {
        var hasher = Hasher()
        var text = name
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        return hasher.finalize()
    }

    private func checksum(_ name: String, in folder: Descriptor) throws(AssetPackError) -> UInt32? {
        let file = try io(folder.openFile(name))
        return try FileChecksum.crc32(of: file)
    }
}

/// The CRC-32 of an open file, read front to back.
enum FileChecksum {
    static func crc32(of file: Descriptor) throws(AssetPackError) -> UInt32 {
        var crc = CRC32()
        // 64 KiB: below glibc's mmap threshold, so a resume of 50,000 small files is not 50,000 mmap/munmap pairs.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try io(file.fd.read(into: buffer, path: file.path))
            if count == 0 { return crc.value }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
