import AssetPack
import AssetPackSystem
import AssetPackZip
import Crypto
import Foundation

/// The unlinked file a manifest is fetched into, hashed as its bytes arrive, so the SHA-256 the signature is
/// checked against is the one of exactly the bytes the planner reads afterwards (by offset), and nothing is left
/// on disk even after a crash. Written by one fetch at a time; read by any number of threads once written.
///
/// An install discards it (``discard()``) once it has planned, before it flushes: its pages are let go, never
/// written to the device.
final class ManifestSpool: DeliverySink, DiscardableManifest, @unchecked Sendable {
    private let file: FileDescriptor
    /// For messages: where the manifest comes from.
    let origin: String
    private var hasher = Crypto.SHA256()
    /// Bytes written since the last restart.
    private(set) var size: UInt64 = 0

    /// A spool writing into `file`, an empty file open for reading and writing that it owns from now on.
    init(file: FileDescriptor, origin: String) {
        self.file = file
        self.origin = origin
    }

    /// A spool in a new unlinked file of the system's temporary folder (for a manifest fetched without an
    /// install).
    convenience init(temporaryFor origin: String) throws(AssetPackError) {
        let folder = try io(Descriptor.directory(FileManager.default.temporaryDirectory.path))
        let name = ".assetpack-manifest-\(CurrentProcess.id)-\(UInt64.random(in: 0...UInt64.max))"
        let file = try io(folder.createFile(name, readable: true))
        try io(folder.remove(name))
        self.init(file: file.detach(), origin: origin)
    }

    deinit { file.close() }

    var name: String { origin }

    func write(_ bytes: UnsafeRawBufferPointer) throws(AssetPackError) {
        try io(file.writeAll(bytes, at: size, path: origin))
        hasher.update(bufferPointer: bytes)
        size += UInt64(bytes.count)
    }

    func restart() throws(AssetPackError) {
        try io(file.truncate(to: 0, path: origin))
        hasher = Crypto.SHA256()
        size = 0
    }

    /// Accepts the bytes: the caller checks the manifest (its hash, its signature) once it is in.
    func finish() throws(AssetPackError) {}

    /// The SHA-256 of the bytes written since the last restart.
    var sha256: ContentHash { ContentHash(hasher.finalize()) }

    /// Truncates the file to nothing: its pages waiting for write-back are dropped, not written. Reads find no
    /// bytes afterwards; the hash stays that of the bytes that were written.
    func discard() {
        try? file.truncate(to: 0, path: origin)
        size = 0
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws(ZipError) -> Int {
        guard offset < size else { return 0 }
        let wanted = Int(min(UInt64(buffer.count), size - offset))
        do {
            return try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), path: origin)
        } catch {
            throw ZipError(error)
        }
    }
}
