import AssetPackSystem
import AssetPackZip

/// The archives of a packed bundle that hold several files (pack archives), parsed once and kept, so
/// opening every file of a pack archive through ``PackedBundleSource/open(_:)`` reads its central
/// directory once, not once per file. An archive with a single entry (a large file packed on its own)
/// is not kept: there may be thousands, each holding a descriptor, and each is opened about once.
final class PackArchiveCache: @unchecked Sendable {
    private let monitor = Monitor()
    private var archives: [AssetPath: ZipArchive] = [:]

    /// The kept archive at `path`, or the one `open` gives (kept when it has more than one entry).
    func archive(at path: AssetPath, open: () throws(AssetPackError) -> ZipArchive?) throws(AssetPackError) -> ZipArchive? {
        if let kept = monitor.withLock({ archives[path] }) { return kept }
        guard let opened = try open() else { return nil }
        if opened.entries.count > 1 { monitor.withLock { archives[path] = opened } }
        return opened
    }
}
