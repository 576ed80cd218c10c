import AssetPackSystem
import AssetPackZip

/// Resumes an interrupted build: walks the staging tree against the plan and keeps every file that has
/// the planned size and permissions after reading it once more for its CRC-32, which must match the plan
/// when the plan knows it (a crash could have left it half-written, and a crash of the whole machine
/// could have lost unflushed data). A file whose CRC the plan does not know is created with no permission
/// bits and gets its planned ones only once complete (``FileMaterializer``). Everything else — files not
/// complete or not matching, temporaries, stray names, links, files of the wrong size — is removed.
///
/// A block-indexed file left unfinished beside its ``BlockJournal`` is kept as partial, with the blocks
/// its journal records: the fill continues it (and checks those blocks again) instead of starting over.
struct StagingPruner {
    let root: Descriptor
    let plan: ExpansionPlan

    /// What an interrupted run left that can be used.
    struct Outcome {
        /// Complete, verified files: their CRC-32s by item index.
        var kept: [Int: UInt32] = [:]
        /// Unfinished block-indexed files: the blocks recorded as written, by item index.
        var partial: [Int: Set<Int>] = [:]
    }

    func prune() throws(AssetPackError) -> Outcome {
        var index: [AssetPath: Int] = [:]
        for (position, item) in plan.items.enumerated() { index[item.path] = position }
        var outcome = Outcome()
        try prune(root, at: .root, index: index, outcome: &outcome)
        return outcome
    }

    private func prune(_ folder: Descriptor, at path: AssetPath, index: [AssetPath: Int],
                       outcome: inout Outcome) throws(AssetPackError) {
        let entries = try io(folder.names())
        // A name that is not UTF-8 is none the plan wrote (see FileName): removed by its bytes.
        for entry in entries where entry.string == nil { try io(TreeRemoval.remove(entry, in: folder)) }
        let names = entries.compactMap(\.string)
        let journals = Set(names.filter(BlockJournal.isJournal))
        var usedJournals: Set<String> = []
        for name in names where !journals.contains(name) {
            if path.isRoot && name == StagingNames.recordDirectory {
                try InstallRecordLists.removeTemporaries(in: try io(folder.directory(name)))
                continue
            }
            guard let child = try? path.appending(name), let status = try io(folder.status(name)),
                  let position = index[child], !name.hasPrefix(StagingNames.temporaryPrefix) else {
                try io(TreeRemoval.remove(name, in: folder))
                continue
            }
            let item = plan.items[position]
            if status.kind == .file && item.kind == .file, let blocks = item.blocks, journals.contains(BlockJournal.name(for: name)),
               let written = try BlockJournal.open(for: name, in: folder)?.writtenBlocks(count: blocks.pairs.count), !written.isEmpty {
                outcome.partial[position] = written
                usedJournals.insert(BlockJournal.name(for: name))
            } else if status.kind == .directory && item.kind == .directory {
                try prune(try io(folder.directory(name)), at: child, index: index, outcome: &outcome)
            } else if status.kind == .file && item.kind == .file && status.size == item.size
                        && status.permissions == item.permissions, let crc = try checksum(name, in: folder),
                      item.crc32 == nil || item.crc32 == crc {
                outcome.kept[position] = crc
            } else {
                try io(TreeRemoval.remove(name, in: folder))
            }
        }
        for journal in journals.subtracting(usedJournals) { try io(TreeRemoval.remove(journal, in: folder)) }
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
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try io(file.fd.read(into: buffer, path: file.path))
            if count == 0 { return crc.value }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
