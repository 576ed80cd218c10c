import AssetPackSystem

/// The entries of a ``ZipArchive`` with their lookup tables, or, for a directory too large to hold
/// (``ZipLimits/maxHeldDirectoryBytes``), its ``DirectorySummary`` until the entries are asked for.
final class EntryStore: @unchecked Sendable {
    /// Kept for the data limits of entries read later; nil when the entries were held from the start.
    let summary: DirectorySummary?
    private let monitor = Monitor()
    /// Guarded by `monitor`; set once.
    private var table: (entries: [ZipEntry], index: ZipIndex)?
    /// Guarded by `monitor`: why reading the entries failed.
    private var loadFailure: ZipError?

    /// Entries held from the start.
    init(held entries: [ZipEntry]) {
        summary = nil
        table = (entries, ZipIndex(entries))
    }

    /// A directory summarized, its entries read on demand.
    init(summary: DirectorySummary) {
        self.summary = summary
    }

    /// True once the entries are held.
    var isLoaded: Bool { monitor.withLock { table != nil } }

    /// Why reading the entries into memory failed, or nil.
    var failure: ZipError? { monitor.withLock { loadFailure } }

    /// The held entries (only when ``isLoaded``).
    var held: [ZipEntry] { monitor.withLock { table?.entries ?? [] } }

    /// The entries and their index, read with `read` on the first call when not held. When `read` fails,
    /// the failure is kept (``failure``) and the table is empty.
    func load(_ read: () throws(ZipError) -> [ZipEntry]) -> (entries: [ZipEntry], index: ZipIndex) {
        monitor.withLock {
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
