import AssetPack
import AssetPackSystem
import Crypto

/// SHA-256s of a source file for the manifest. A file read front to back is hashed by ``SourceFile`` on the
/// way; one deflated in blocks is read out of order by several threads, so ``ofBlocks`` reads it once more
/// (from the page cache) and hashes the whole file and each block in that pass — on a helper thread while
/// the blocks are compressed (``ofBlocks(_:size:blockSize:follow:beside:)``), not after them.
enum FileDigest {
    /// ``ofBlocks(_:size:blockSize:follow:)`` computed on a helper thread while `body` runs on this one; on
    /// this thread after `body` when no helper could start. Returns what `body` returned and the digests.
    static func ofBlocks<Result>(_ path: String, size: UInt64, blockSize: Int, follow: Bool,
                                 beside body: () throws(AssetPackError) -> Result)
        throws(AssetPackError) -> (Result, (file: String, blocks: [String])) {
        let digests = DigestBox()
        let result = try WorkerThreads.withHelpers(1, helper: { _ in
            digests.set(Swift.Result { () throws(AssetPackError) in try ofBlocks(path, size: size, blockSize: blockSize, follow: follow) })
        }, body)
        let outcome = digests.get() ?? Swift.Result { () throws(AssetPackError) in
            try ofBlocks(path, size: size, blockSize: blockSize, follow: follow)
        }
        return (result, try outcome.get())
    }

    /// The helper's outcome.
    private final class DigestBox: @unchecked Sendable {
        private let monitor = Monitor()
        private var outcome: Swift.Result<(file: String, blocks: [String]), AssetPackError>?
        func set(_ value: Swift.Result<(file: String, blocks: [String]), AssetPackError>) { monitor.withLock { outcome = value } }
        func get() -> Swift.Result<(file: String, blocks: [String]), AssetPackError>? { monitor.withLock { outcome } }
    }

    /// The SHA-256 of the file at `path` (which must have `size` bytes) and of each of its blocks of `blockSize`
    /// bytes.
    /// - Throws: `.verification` when the file no longer has `size` bytes; read errors.
    static func ofBlocks(_ path: String, size: UInt64, blockSize: Int, follow: Bool) throws(AssetPackError) -> (file: String, blocks: [String]) {
        let source = try SourceFile(path, expectedSize: size, follow: follow)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var block = Crypto.SHA256(), blocks: [String] = [], inBlock = 0
        while true {
            let count: Int
            do { count = try source.read(into: buffer) } catch { throw AssetPackError(error, path: path) }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let take = min(count - offset, blockSize - inBlock)
                block.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + take]))
                offset += take
                inBlock += take
                if inBlock == blockSize {
                    blocks.append(lowercaseHex(block.finalize()))
                    block = Crypto.SHA256()
                    inBlock = 0
                }
            }
        }
        try source.checkComplete()
        if inBlock > 0 || blocks.isEmpty { blocks.append(lowercaseHex(block.finalize())) }
        return (source.sha256, blocks)
    }
}
