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
/// Everything else at a planned path is removed before the window is written.
final class ResumeCheck {
    private let root: Descriptor
    /// The hashes of every path planned so far, and of the folders among them (8 bytes a path, only while
    /// resuming): the sweep enters a planned folder without asking what it is (``check(_:)`` left only folders
    /// there), and looks no further at a planned file.
    private var planned: Set<Int> = []
    private var plannedFolders: Set<Int> = []

    /// What an interrupted run left that can be used, in one window.
    struct Outcome {
        /// Complete, verified files by item index.
        var kept: [Int: StagedFile] = [:]
        /// Unfinished block-indexed files: the blocks recorded as written, by item index.
        var partial: [Int: Set<Int>] = [:]
    }

    /// A check of the staging tree `root`.
    init(root: Descriptor) { self.root = root }

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
            planned.insert(Self.hash(item.path.string))
            if item.kind == .directory { plannedFolders.insert(Self.hash(item.path.string)) }
            let parent = item.path.string[..<(item.path.string.lastIndex(of: "/") ?? item.path.string.startIndex)]
            if let missing, parent == missing || parent.hasPrefix(missing + "/") { continue }
            guard let folder = cursor.existingParent(ofPath: item.path.string) else {
                missing = parent
                continue
            }
            guard let status = try io(folder.status(item.path.name)) else { continue }
            switch (item.kind, status.kind) {
            case (.directory, .directory):
                continue
            case (.file, .file) where status.links == 1 && status.permissions == item.permissions:
                // A partial file is never longer than planned: trailing bytes would survive its completion.
                if let blocks = item.blocks, status.size <= item.size, let journal = try BlockJournal.open(for: item.path.name, in: folder),
                   case let written = try journal.writtenBlocks(count: blocks.pairs.count), !written.isEmpty {
                    outcome.partial[position] = written
                    continue
                }
                if status.size == item.size, let crc = try checksum(item.path.name, in: folder),
                   try crc == Self.expectedCRC(of: item, in: plan) {
                    outcome.kept[position] = StagedFile(crc32: crc, onDisk: StagedFile.onDisk(status))
                    continue
                }
            default:
                break
            }
            try io(TreeRemoval.remove(item.path.name, in: folder))
        }
        return outcome
    }

    /// Removes from the staging tree everything that no window planned: stray names, names that are not
    /// UTF-8 (none the plan wrote, see `FileName`), temporaries and journals left over. The record folder at
    /// the top is the install's own (its lists are being gathered there).
    func sweep() throws(AssetPackError) {
        try sweep(root, at: "")
    }

    private func sweep(_ folder: Descriptor, at prefix: String) throws(AssetPackError) {
        for entry in try io(folder.names()) {
            guard let name = entry.string else {
                try io(TreeRemoval.remove(entry, in: folder))
                continue
            }
            if prefix.isEmpty && name == StagingNames.recordDirectory { continue }
            let path = prefix + name, hash = Self.hash(path)
            guard planned.contains(hash), !name.hasPrefix(StagingNames.temporaryPrefix) else {
                try io(TreeRemoval.remove(name, in: folder))
                continue
            }
            if plannedFolders.contains(hash) { try sweep(try io(folder.directory(name)), at: path + "/") }
        }
    }

    /// A hash of the path's bytes (`String`'s own hash would take a decomposed name for its composed twin).
    private static func hash(_ path: String) -> Int {
        var hasher = Hasher()
        var text = path
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
