import AssetPackZip
import Foundation

/// An archive inside a source, opened on first use and then shared by every item that reads from it.
/// It is read with random access when the source offers it, else spooled once into an unlinked temporary
/// file (see ``SpooledFile``).
final class ArchiveHandle: @unchecked Sendable {
    /// The archive's path in the source.
    let path: AssetPath
    private let source: any AssetSource
    private let limits: ZipLimits
    private let lock = NSLock()
    private var opened: ZipArchive?

    init(source: any AssetSource, path: AssetPath, limits: ZipLimits) {
        self.source = source
        self.path = path
        self.limits = limits
    }

    /// The archive's name in messages: the source's name and the path.
    var displayName: String { path.string }

    /// The open archive (opening it on the first call).
    func archive() throws(AssetPackError) -> ZipArchive {
        lock.lock()
        defer { lock.unlock() }
        if let opened { return opened }
        let bytes = try randomAccess()
        do {
            let archive = try ZipArchive(source: bytes, limits: limits)
            opened = archive
            return archive
        } catch {
            throw AssetPackError(error.inArchive(displayName))
        }
    }

    private func randomAccess() throws(AssetPackError) -> any RandomAccessSource {
        if let direct = source as? any RandomAccessAssetSource, let bytes = try direct.randomAccess(path) {
            return bytes
        }
        return try SpooledFile(copying: try source.open(path), name: path.string)
    }
}
