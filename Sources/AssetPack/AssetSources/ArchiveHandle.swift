import AssetPackZip
import Foundation

/// An archive the expander reads entries from, shared by every item that reads from it: the source
/// itself (``init(opened:)``), or an archive stored in a source, opened on first use. A stored archive is
/// read with random access when the source offers it (``SourceAccess``), else spooled once into an
/// unlinked temporary file (see ``SpooledFile``).
final class ArchiveHandle: @unchecked Sendable {
    /// The archive's name in messages: its path in the source, or the archive's own name.
    let displayName: String
    private let location: (access: SourceAccess, path: AssetPath, limits: ZipLimits)?
    /// The archive given open: read without taking the lock (every entry of an archive source uses it).
    private let given: ZipArchive?
    private let lock = NSLock()
    private var opened: ZipArchive?

    /// The archive stored at `path` of `access`'s source, read with `limits`.
    init(in access: SourceAccess, at path: AssetPath, limits: ZipLimits) {
        self.location = (access, path, limits)
        self.given = nil
        self.displayName = path.string
    }

    /// An archive already open.
    init(opened archive: ZipArchive) {
        self.location = nil
        self.given = archive
        self.displayName = archive.name
    }

    /// The open archive (opening it on the first call).
    func archive() throws(AssetPackError) -> ZipArchive {
        if let given { return given }
        lock.lock()
        defer { lock.unlock() }
        if let opened { return opened }
        guard let location else { throw AssetPackError(.invalidArgument, "archive handle without an archive", path: displayName) }
        let bytes: any RandomAccessSource
        if let direct = try location.access.randomAccess(location.path) {
            bytes = direct
        } else {
            bytes = try SpooledFile(copying: try location.access.source.open(location.path), name: location.path.string)
        }
        do {
            let archive = try ZipArchive(source: bytes, limits: location.limits)
            opened = archive
            return archive
        } catch {
            throw AssetPackError(error.inArchive(displayName))
        }
    }
}
