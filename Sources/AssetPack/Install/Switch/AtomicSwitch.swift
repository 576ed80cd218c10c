import AssetPackSystem

/// Puts a complete staging tree in place of the destination in one step, so a reader always sees the
/// previous complete tree or the new one. Linux swaps the two names with `renameat2(RENAME_EXCHANGE)`,
/// Darwin with `renamex_np(RENAME_SWAP)`; where the file system cannot swap, the old tree is renamed
/// aside first (`.<name>.assetpack-previous`), which leaves a moment without a destination — a call after a
/// crash in that moment finds the complete staging tree and finishes the switch.
///
/// Either way the previous tree ends under the aside name before anything of it is removed: under the
/// staging name, its record would pass it off as a complete staging tree of that version.
enum AtomicSwitch {
    /// Switches `staging` in as `destination` (both in `parent`). Returns the name the previous tree now
    /// has (``StagingNames/previous(for:)``), to be removed, or nil when there was none.
    static func perform(staging: String, destination: String, in parent: Descriptor) throws(AssetPackError) -> String? {
        let display = parent.path + "/" + destination
        guard try io(parent.status(destination)) != nil else {
            try io(parent.rename(staging, to: destination, in: parent))
            return nil
        }
        let previous = StagingNames.previous(for: destination)
        try io(TreeRemoval.remove(previous, in: parent))
        if try io(parent.exchange(staging, destination)) {
            // A crash before this rename leaves the previous tree whole under the staging name: complete, so harmless.
            try io(parent.rename(staging, to: previous, in: parent))
            return previous
        }
        try io(parent.rename(destination, to: previous, in: parent, shown: display))
        try io(parent.rename(staging, to: destination, in: parent))
        return previous
    }

    /// Threads that remove a previous tree at once.
    static let removalThreads = 4

    /// Removes the previous tree `name` in `parent` (what ``perform(staging:destination:in:)`` returned), on
    /// up to ``removalThreads`` threads: each entry of its first two levels is removed on its own, then those
    /// folders, then the tree (removal waits on the device, so several threads overlap their waits). An
    /// interrupted removal leaves the rest under the aside name for the next call.
    static func removePrevious(_ name: String, in parent: Descriptor) throws(AssetPackError) {
        guard let status = try io(parent.status(name)) else { return }
        guard status.kind == .directory, status.permissions & 0o700 == 0o700,
              let tree = try? parent.directory(name), let top = try? tree.names() else {
            return try io(TreeRemoval.remove(name, in: parent))  // anything unusual: the careful way
        }
        var units: [(folder: Descriptor, name: FileName)] = []
        var folders: [FileName] = []
        for entry in top {
            if let text = entry.string, let status = try? tree.status(text), status.kind == .directory,
               status.permissions & 0o700 == 0o700, let inner = try? tree.directory(text), let names = try? inner.names() {
                folders.append(entry)
                units += names.map { (inner, $0) }
            } else {
                units.append((tree, entry))
            }
        }
        let work = units
        try WorkerThreads.run(count: work.count, jobs: removalThreads) { (index, _) throws(AssetPackError) in
            try io(TreeRemoval.remove(work[index].name, in: work[index].folder))
        }
        for folder in folders { try io(TreeRemoval.remove(folder, in: tree)) }
        try io(TreeRemoval.remove(name, in: parent))
    }
}
