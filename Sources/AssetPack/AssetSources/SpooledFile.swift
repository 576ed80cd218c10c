import AssetPackSystem
import AssetPackZip
import Foundation

/// A stream copied into a temporary file that is unlinked at once, so it can be read at any offset
/// (an archive the source can only hand out front to back): in an install's staging tree, or else the system's
/// temporary folder (``ExpansionOptions/spoolFolder``). Nothing is left on disk, even after a crash.
final class SpooledFile: RandomAccessSource, @unchecked Sendable {
    let size: UInt64
    let name: String
    private let file: Descriptor

    /// Copies `stream` into a fresh unlinked file in `folder` (made if missing), or the system's temporary folder.
    /// - Throws: `.io` naming the folder, when it cannot take the copy; the stream's errors.
    init(copying stream: any ByteStream, name: String, in folder: String?) throws(AssetPackError) {
        let place = folder ?? FileManager.default.temporaryDirectory.path
        let directory: Descriptor
        do throws(AssetPackError) {
            if let folder { _ = try io(FileSystem.makeDirectories(folder)) }
            directory = try io(Descriptor.directory(place))
        } catch {
            throw AssetPackError(error.code, "cannot copy \(AssetPath.quoted(name)) here to read it at random (it is read front to back "
                                 + "only): \(error.message)", path: place, cause: error.cause)
        }
        let temporary = ".assetpack-spool-\(CurrentProcess.id)-\(UInt64.random(in: 0...UInt64.max))"
        self.file = try io(directory.createFile(temporary, readable: true))
        try io(directory.remove(temporary))
        self.name = name
        var total: UInt64 = 0
        let spool = file
        try stream.forEachPiece(name: name) { (piece) throws(AssetPackError) in
            try io(spool.fd.writeAll(piece, path: name))
            total += UInt64(piece.count)
        }
        self.size = total
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        do {
            return try file.fd.read(at: offset, into: buffer, path: name)
        } catch {
            throw ZipError(error)
        }
    }
}
