import AssetPackSystem

/// Finds the files of a plan (one window of it) that the installed tree already holds unchanged: same path,
/// size, permissions and CRC-32 (and SHA-256, when the record and the plan both have one) in the installed
/// record, and still the very file the install left: a regular file of that size and those permissions with the
/// recorded inode and modification time (in nanoseconds); a record without inodes (an older one) reuses
/// nothing. This costs the `fstatat` the size check makes anyway, not a read. When the plan does not know a
/// file's CRC (a folder without a manifest), the source file is read once to compute it. A file renamed or moved
/// is found by its SHA-256 among the recorded files (``moved(_:in:recorded:)``). Such files are hard-linked, not
/// rewritten nor fetched.
///
/// The window's files are taken in path order and the record read alongside them (``RecordCursor``).
struct UpgradeDiff {
    let plan: ExpansionPlan

    /// What an install does with the files of `plan` (one window): those `installed` (its record read by
    /// `recorded`) holds unchanged are linked — at their own path, or at the path they had before they were
    /// renamed or moved (`moved`, by position: the installed file's path) —, those an interrupted run `left`
    /// complete are kept, the others (`toWrite`, in plan order) are written. The install and its dry run both ask this.
    static func split(_ plan: ExpansionPlan, installed: Descriptor?, recorded: RecordCursor?, left: ResumeCheck.Outcome,
                      repairing: Set<String> = []) throws(AssetPackError)
        -> (unchanged: [Int: StagedFile], moved: [Int: String], toWrite: [Int]) {
        let present = Set(left.kept.keys).union(left.partial.keys)
        var unchanged: [Int: StagedFile] = [:], moved: [Int: String] = [:]
        let written = { (position: Int) in plan.items[position].kind == .file && left.kept[position] == nil && !present.contains(position) }
        if let installed, let recorded {
            let diff = UpgradeDiff(plan: plan)
            unchanged = try diff.unchanged(in: installed, recorded: recorded, repairing: repairing, excluding: present)
            let candidates = plan.items.indices.filter { written($0) && unchanged[$0] == nil && !repairing.contains(plan.items[$0].path.string) }
            let linked = Set(unchanged.keys.map { plan.items[$0].path.string })
            for (position, (file, path)) in try diff.moved(candidates, in: installed, recorded: recorded) where !linked.contains(path) {
                (unchanged[position], moved[position]) = (file, path)
            }
        }
        let toWrite = plan.items.indices.filter { plan.items[$0].kind == .file && left.kept[$0] == nil && unchanged[$0] == nil }
        return (unchanged, moved, toWrite)
    }

    /// Of the files at `positions`, those the installed tree holds unchanged at another path (renamed or moved):
    /// a recorded file with the same SHA-256 (the plan's and the record's: a CRC-32 alone is easy to forge), size
    /// and permissions that is still the very file the install left (``isStillThere(_:size:permissions:in:)``).
    /// Each recorded file is lent once. Files of a plan without SHA-256s are never matched.
    func moved(_ positions: [Int], in installed: Descriptor, recorded: RecordCursor) throws(AssetPackError) -> [Int: (StagedFile, String)] {
        var result: [Int: (StagedFile, String)] = [:]
        let folders = DirectoryCursor(root: installed)
        for position in positions {
            let item = plan.items[position]
            guard let digest = item.digest, let old = recorded.claim(digest), let crc = old.crc32, item.crc32 == nil || item.crc32 == crc,
                  old.size == item.size, old.mode == item.permissions, let inode = old.inode, let mtime = old.mtime,
                  try isStillThere(old, size: item.size, permissions: item.permissions, in: folders) else { continue }
            result[position] = (StagedFile(crc32: crc, onDisk: (inode, mtime)), old.path)
        }
        return result
    }

    /// Unchanged files (their CRCs, inodes and modification times) by item index, from the record of `installed` (read by `recorded`), skipping
    /// `excluded` (files already in staging) and the paths `repairing`.
    func unchanged(in installed: Descriptor, recorded: RecordCursor, repairing: Set<String> = [],
                   excluding excluded: Set<Int> = []) throws(AssetPackError) -> [Int: StagedFile] {
        let folders = DirectoryCursor(root: installed)
        let wanted = PlanOrder.positions(of: plan.items).filter { position in
            plan.items[position].kind == .file && !excluded.contains(position)
                && (repairing.isEmpty || !repairing.contains(plan.items[position].path.string))
        }
        var result: [Int: StagedFile] = [:]
        let listed = recorded.files(at: wanted.map { ($0, Array(plan.items[$0].path.string.utf8)) })
        // In path order, not the dictionary's: the folder cursor then opens each folder once.
        for position in wanted {
            guard let old = listed[position] else { continue }
            let item = plan.items[position]
            guard let crc = old.crc32, mayKeep(item, size: old.size, mode: old.mode, sha256: old.sha256),
                  let inode = old.inode, let mtime = old.mtime, try isStillThere(item, crc, old, in: folders) else { continue }
            result[position] = StagedFile(crc32: crc, onDisk: (inode, mtime))
        }
        return result
    }

    /// True when the record says what the plan says of the file `item`: the same `size` and permissions
    /// (`mode`), and the same SHA-256 when both have one (a recorded one that is not 64 hex digits never matches).
    private func mayKeep(_ item: ExpansionItem, size: UInt64, mode: UInt32, sha256: String?) -> Bool {
        guard size == item.size && mode == item.permissions else { return false }
        guard let sha256 else { return true }
        guard let digest = SHA256Digest(hex: sha256) else { return false }
        return item.digest == nil || digest == item.digest
    }

    /// True when `item`'s data has the recorded CRC-32 `installed` and the installed tree still holds the file
    /// the record describes (`old`, at `item`'s path).
    private func isStillThere(_ item: ExpansionItem, _ installed: UInt32, _ old: InstallRecord.File,
                              in cursor: DirectoryCursor) throws(AssetPackError) -> Bool {
        guard try sameCRC(item, installed) else { return false }
        return try isStillThere(old, size: item.size, permissions: item.permissions, in: cursor)
    }

    /// True when the installed tree still holds the file the record describes (`old`) at its path: a regular file of
    /// `size` bytes and `permissions`, with the recorded inode and modification time.
    private func isStillThere(_ old: InstallRecord.File, size: UInt64, permissions: UInt32,
                              in cursor: DirectoryCursor) throws(AssetPackError) -> Bool {
        guard let inode = old.inode, let mtime = old.mtime, let path = try? AssetPath(old.path),
              let folder = cursor.existingParent(ofPath: path.string), let status = try io(folder.status(path.name))
        else { return false }
        // The mode on disk too: a file whose mode was changed since (0400 where the bundle says 0644) is written again.
        return status.kind == .file && status.size == size && status.permissions == permissions
            && status.inode == inode && status.modifiedNanoseconds >= 0 && UInt64(status.modifiedNanoseconds) == mtime
    }

    private func sameCRC(_ item: ExpansionItem, _ installed: UInt32) throws(AssetPackError) -> Bool {
        if let crc = item.crc32 { return crc == installed }
        let (stream, origin) = try ItemSource.open(item, in: plan.source)
        return try StreamMeasure.measure(stream, name: origin.description).crc32 == installed
    }
}
