import AssetPack

/// Where the independently decodable blocks of a packed entry lie within its archive file: what a client
/// asks for with `Range` to fetch one block of a large file.
public enum BlockRanges {
    /// The byte ranges of `storage`'s blocks within its archive, in order, covering the entry's compressed data.
    /// - Parameters:
    ///   - storage: a packed entry's storage from the manifest (`BundleManifest/Storage/blocks` as the packer
    ///     records them: `[uncompressed offset, compressed offset]` pairs, the first `[0, 0]`); an entry without
    ///     blocks is one block.
    ///   - dataOffset: where the entry's compressed data starts in the archive file (after its local header).
    /// - Throws: `AssetPackError/Code/manifest` when the storage is not packed, lacks its compressed size, or
    ///   its block offsets do not start at 0, increase, and stay inside the data.
    public static func of(_ storage: BundleManifest.Storage, dataOffset: UInt64) throws(AssetPackError) -> [Range<UInt64>] {
        guard storage.form == .packed, let size = storage.compressedSize else {
            throw AssetPackError(.manifest, "block ranges need a packed entry with its compressed size", path: storage.file)
        }
        let starts = (storage.blocks ?? [[0, 0]]).map { $0.count == 2 ? $0[1] : UInt64.max }
        guard starts.first == 0, zip(starts, starts.dropFirst()).allSatisfy({ $0 < $1 }), starts.last! < max(size, 1),
              dataOffset <= UInt64.max - size else {
            let reason = "block offsets of \(storage.entry ?? storage.file) do not fit its \(size) compressed bytes"
            throw AssetPackError(.manifest, reason, path: storage.file)
        }
        let ends = starts.dropFirst() + [size]
        return zip(starts, ends).map { dataOffset + $0..<dataOffset + $1 }
    }
}
