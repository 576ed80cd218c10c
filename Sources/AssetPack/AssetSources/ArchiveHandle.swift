import AssetPackSystem
import AssetPackZip

/// An archive the expander reads entries from, shared by every item that reads from it: the source
/// itself (``init(opened:)``), or an archive stored in a source, opened on first use. A stored archive is
/// read with random access when the source offers it (``SourceAccess``), else spooled once into an
/// unlinked temporary file (see ``SpooledFile``).
final class ArchiveHandle: @unchecked Sendable {
    /// The archive's name in messages: its path in the source, or the archive's own name.
    let displayName: String
    /// Where the archive is, for errors: the file on disk, and its path there when stored in a source.
    let location: ErrorLocation
    private let storage: Storage
    private let monitor = Monitor()
    private var opened: ZipArchive?

    /// Where the archive is.
    private enum Storage {
        /// Open from the start: read without taking the lock (every entry of an archive source uses it).
        case given(ZipArchive)
        /// At `path` of a source, to be read with `limits`, copied into `spoolFolder` when it must be.
        case stored(SourceAccess, AssetPath, ZipLimits, spoolFolder: String?)
    }

    /// The archive stored at `path` of `access`'s source, read with `limits` (and copied into `spoolFolder`,
    /// ``ExpansionOptions/spoolFolder``, when the source cannot give it at random).
    init(in access: SourceAccess, at path: AssetPath, limits: ZipLimits, spoolFolder: String? = nil) {
        self.storage = .stored(access, path, limits, spoolFolder: spoolFolder)
        self.displayName = path.string
        self.location = ErrorLocation(access.fileName, member: path.string)
    }

    /// An archive already open.
    init(opened archive: ZipArchive) {
        self.storage = .given(archive)
        self.displayName = archive.name
        self.location = ErrorLocation(archive.name)
    }

    /// The open archive (opening it on the first call).
    func archive() throws(AssetPackError) -> ZipArchive {
        switch storage {
        case .given(let archive): archive
        case .stored(let access, let path, let limits, let spoolFolder): try open(path, of: access, limits: limits, spoolFolder: spoolFolder)
        }
    }

    /// Lets go of an archive stored in a source, opened on first use: its parsed entries and its descriptor
    /// go once no reader holds it, and a later ``archive()`` opens it again (``ArchiveReleases``). An archive
    /// given open is kept.
    func release() {
        guard opensOnDemand else { return }
        monitor.withLock { opened = nil }
    }

    /// True for an archive stored in a source (opened on first use, and again after ``release()``); false
    /// for one given open.
    var opensOnDemand: Bool {
        if case .stored = storage { return true }
        return false
    }

    /// The archive at `path` of `access`, opened under the lock unless it is open already (copied into
    /// `spoolFolder` first when the source cannot give it at random).
    private func open(_ path: AssetPath, of access: SourceAccess, limits: ZipLimits, spoolFolder: String?) throws(AssetPackError) -> ZipArchive {
        try monitor.withLock { () throws(AssetPackError) -> ZipArchive in
            if let opened { return opened }
            let bytes: any RandomAccessSource
            if let direct = try access.randomAccess(path) {
                bytes = direct
            } else {
                bytes = try SpooledFile(copying: try access.source.open(path), name: path.string, in: spoolFolder)
            }
            do throws(ZipError) {
                let archive = try ZipArchive(source: bytes, limits: limits)
                opened = archive
                return archive
            } catch {
                throw location.error(error)
            }
        }
    }
}
