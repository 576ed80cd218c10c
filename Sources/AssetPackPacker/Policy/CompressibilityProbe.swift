import AssetPack
import AssetPackZip

/// Guesses cheaply whether deflate will pay for a file: it deflates a few sample chunks at level 1
/// (the start, the end, and evenly spaced ones in between) and reports how much they shrank.
/// JPEG, PNG, MP4, zip and other already-compressed data save almost nothing and are then stored, so the
/// full deflate pass is skipped for them.
///
/// The samples are compressed by a ``BlockDeflater``, which stores stretches that look like noise
/// without compressing them: an incompressible file costs little more than reading its samples. It uses
/// zlib on every machine, so that a file is stored or deflated the same way whichever deflater builds.
struct CompressibilityProbe {
    let rules: PackingRules

    /// True when deflating the sample of `path` (a file of `size` bytes) saves at least
    /// ``PackingRules/minimumSampleSaving``.
    func worthDeflating(_ path: String, size: UInt64) throws(AssetPackError) -> Bool {
        guard size > 0 else { return false }
        do throws(ZipError) {
            let source = try FileSource(path: path)
            let deflater = try BlockDeflater(level: 1, engine: .zlib)
            var original: UInt64 = 0, compressed: UInt64 = 0
            for offset in sampleOffsets(size: size) {
                let chunk = try read(source, at: offset, count: Int(min(UInt64(rules.sampleChunkSize), size - offset)))
                original += UInt64(chunk.count)
                compressed += UInt64(try deflater.deflate(chunk).count)
            }
            return PackingRules.saves(compressed, of: original, atLeast: rules.minimumSampleSaving)
        } catch {
            throw AssetPackError(error, path: path)
        }
    }

    /// Where the sample chunks start: every byte when the file is small, else the start, the end, and
    /// evenly spaced chunks between them.
    func sampleOffsets(size: UInt64) -> [UInt64] {
        let chunk = UInt64(rules.sampleChunkSize)
        let count = UInt64(max(rules.sampleChunks, 1))
        if size <= chunk * count { return Array(stride(from: 0, to: size, by: Int(chunk))) }
        guard count > 1 else { return [0] }
        let last = size - chunk
        return (0..<count).map { last / (count - 1) * $0 }
    }

    private func read(_ source: FileSource, at offset: UInt64, count: Int) throws(ZipError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(ZipError) -> Int in try source.read(into: buffer, at: offset) }
        }
        return Array(bytes[0..<(try got.get())])
    }
}
