import AssetPack
import AssetPackSystem
import AssetPackZip

/// What the manifest records of a source file beyond its CRC-32, read in passes of their own where the
/// compression cannot give them: the content-defined chunks of a large packed file (``chunks(_:size:by:follow:)``,
/// before it is compressed chunk by chunk), and the SHA-256 of a file deflated in blocks out of order
/// (``ofFile(_:size:follow:beside:)``, on a helper thread while the blocks are compressed).
enum FileDigest {
    /// The chunks of the file at `path` (which must have `size` bytes) by `chunking`, each with its SHA-256,
    /// and the file's SHA-256, in one read.
    /// - Throws: `.verification` when the file no longer has `size` bytes; read errors.
    static func chunks(_ path: String, size: UInt64, by chunking: ContentChunking, follow: Bool) throws(AssetPackError) -> FileChunks {
        let source = try SourceFile(path, expectedSize: size, follow: follow)
        var chunks = try FileChunks.scan(by: chunking, hashesFile: false) { (buffer) throws(AssetPackError) -> Int in
            do throws(ZipError) { return try source.read(into: buffer) } catch { throw AssetPackError(error, path: path) }
        }
        try source.checkComplete()
        chunks.fileSHA256 = source.sha256
        return chunks
    }

    /// The SHA-256 of the file at `path` (which must have `size` bytes), computed on a helper thread while
    /// `body` runs on this one (on this thread after `body` when no helper could start), with what `body` returned.
    static func ofFile<Result>(_ path: String, size: UInt64, follow: Bool,
                               beside body: () throws(AssetPackError) -> Result) throws(AssetPackError) -> (Result, String) {
        let digest = DigestBox()
        let result = try WorkerThreads.withHelpers(1, helper: { _ in
            digest.set(Swift.Result { () throws(AssetPackError) in try ofFile(path, size: size, follow: follow) })
        }, body)
        let outcome = digest.get() ?? Swift.Result { () throws(AssetPackError) in try ofFile(path, size: size, follow: follow) }
        return (result, try outcome.get())
    }

    /// The SHA-256 of the file at `path`, which must have `size` bytes.
    private static func ofFile(_ path: String, size: UInt64, follow: Bool) throws(AssetPackError) -> String {
        let source = try SourceFile(path, expectedSize: size, follow: follow)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while try { () throws(AssetPackError) -> Int in
            do throws(ZipError) { return try source.read(into: buffer) } catch { throw AssetPackError(error, path: path) }
        }() > 0 {}
        try source.checkComplete()
        return source.sha256
    }

    /// The helper's outcome.
    private final class DigestBox: @unchecked Sendable {
        private let monitor = Monitor()
        private var outcome: Swift.Result<String, AssetPackError>?
        func set(_ value: Swift.Result<String, AssetPackError>) { monitor.withLock { outcome = value } }
        func get() -> Swift.Result<String, AssetPackError>? { monitor.withLock { outcome } }
    }
}
