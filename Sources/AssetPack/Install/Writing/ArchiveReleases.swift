import AssetPackSystem

/// Lets go of each archive that files are read from (``ArchiveHandle/release()``) as soon as the last of
/// those files is written, so only the few being read are open. An archive let go too early (a file written
/// twice after a retry) is opened again.
final class ArchiveReleases: @unchecked Sendable {
    private let monitor = Monitor()
    /// Guarded by ``monitor``: files still to be written from each archive.
    private var pending: [ObjectIdentifier: (handle: ArchiveHandle, files: Int)] = [:]

    /// Counts the files at `positions` of `items` that are read from an archive opened on demand (an archive
    /// given open, the source itself, is never let go: its files cost no lock).
    init(_ positions: [Int], of items: [ExpansionItem]) {
        for position in positions {
            guard case .zipEntry(let handle, _) = items[position].origin, handle.opensOnDemand else { continue }
            pending[ObjectIdentifier(handle), default: (handle, 0)].files += 1
        }
    }

    /// Records that `item` was written: when it was the last file read from its archive, the archive is let go.
    func written(_ item: ExpansionItem) {
        guard case .zipEntry(let handle, _) = item.origin, handle.opensOnDemand else { return }
        let last = monitor.withLock { () -> Bool in
            guard let entry = pending[ObjectIdentifier(handle)] else { return false }
            if entry.files > 1 {
                pending[ObjectIdentifier(handle)]?.files = entry.files - 1
                return false
            }
            pending[ObjectIdentifier(handle)] = nil
            return true
        }
        if last { handle.release() }
    }
}
