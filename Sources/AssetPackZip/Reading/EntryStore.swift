import AssetPackSystem

/// The entries of a ``ZipArchive`` with their lookup tables, or, for a directory too large to hold
/// (``ZipLimits/maxHeldDirectoryBytes``), its ``DirectorySummary`` until the entries are asked for.
final class EntryStore: @unchecked Sendable {
    /// Kept for the data limits of entries read later; nil when the entries were held from the start.
    let summary: DirectorySummary?
    /// The entries held from the start, read without the lock (every archive of ordinary size).
    private let preloaded: (entries: [ZipEntry], index: ZipIndex)?
    private let monitor = Monitor()
    /// Guarded by `monitor`; set once.
    private var table: (entries: [ZipEntry], index: ZipIndex)?
    /// Guarded by `monitor`: why reading the entries failed.
    private var loadFailure: ZipError?

    /// Entries held from the start.
    init(held entries: [ZipEntry]) {
        summary = nil
        preloaded = (entries, ZipIndex(entries))
    }

    /// A directory summarized, its entries read on demand.
    init(summary: DirectorySummary) {
        self.summary = summary
        preloaded = nil
    }

    /// True once the entries are held.
    var isLoaded: Bool { preloaded != nil || monitor.withLock { table != nil } }

    /// Why reading the entries into memory failed, or nil.
    var failure: ZipError? { preloaded != nil ? nil : monitor.withLock { loadFailure } }

    /// The held entries (only when ``isLoaded``).
    var held: [ZipEntry] { preloaded?.entries ?? monitor.withLock { table?.entries ?? [] } }

    /// The entries and their index, read with `read` on the first call when not held. When `read` fails,
    /// the failure is kept (``failure``) and the table is empty.
    func load(_ read: () throws(ZipError) -> [ZipEntry]) -> (entries: [ZipEntry], index: ZipIndex) {
        if let preloaded { return preloaded }
        return monitor.withLock {
            if let table { return table }
            let entries: [ZipEntry]
            do throws(ZipError) {
                entries = try read()
            } catch {
                loadFailure = error
                entries = []
            }
            let made = (entries, ZipIndex(entries))
            table = made
            return made
        }
    }
}
