import AssetPack
import AssetPackSystem
import Crypto

/// SHA-256s of a source file for the manifest (``BundleManifest/Entry/sha256``,
/// ``BundleManifest/Storage/blockSHA256``), with swift-crypto (hardware SHA where the CPU has it).
///
/// A file streamed into the bundle is hashed by ``SourceFile`` as it is read, in the same pass. A file
/// deflated in blocks is read by several threads at once, out of order, so its hashes come from ``ofBlocks``:
/// one more sequential read of the file (just read, so from the page cache), which hashes the whole file and
/// each block in the same pass.
enum FileDigest {
    /// 64 lowercase hex digits of `digest`.
    static func hex(_ digest: Crypto.SHA256Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The SHA-256 of `bytes` (a file read into memory).
    static func of(_ bytes: UnsafeRawBufferPointer) -> String {
        var hash = Crypto.SHA256()
        hash.update(bufferPointer: bytes)
        return hex(hash.finalize())
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
                    blocks.append(hex(block.finalize()))
                    block = Crypto.SHA256()
                    inBlock = 0
                }
            }
        }
        try source.checkComplete()
        if inBlock > 0 || blocks.isEmpty { blocks.append(hex(block.finalize())) }
        return (source.sha256, blocks)
    }
}
