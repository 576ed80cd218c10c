import AssetPack
import AssetPackSystem
import AssetPackZip

/// Writes one pack archive (``PackGroup``): each member read whole into memory (it is small) and stored,
/// or, with a ``PackingRules/packLevel`` above 0, deflated at that level and stored instead when deflate
/// does not save ``PackingRules/minimumSaving`` (for a file this small the probe's sample would be the whole
/// file, so the full pass decides alone). Fixed timestamps and normalized permissions, as for every other
/// archive of a bundle: the same members give the same bytes. The archive is an ordinary zip, entries named
/// by their logical paths.
struct PackWriter: Sendable {
    /// The single-file packer whose rules, zip options and link policy pack archives share.
    let packer: EntryPacker

    /// Writes `pack` to `archive`; returns how each member was stored, in member order, with its SHA-256 and
    /// where its data begins in the archive (what delivery over HTTP fetches by range).
    func write(_ pack: PackGroup, to archive: String) throws(AssetPackError) -> [PackedFile] {
        let writer: ZipWriter
        do { writer = try ZipWriter(path: archive, options: packer.options) } catch { throw AssetPackError(error) }
        let deflater: BlockDeflater?
        do { deflater = packer.rules.packLevel > 0 ? try BlockDeflater(level: packer.rules.packLevel, storesNoise: false) : nil } catch {
            throw AssetPackError(error)
        }
        var packed: [PackedFile] = []
        packed.reserveCapacity(pack.members.count)
        for item in pack.members {
            packed.append(try add(item, to: writer, deflater: deflater))
        }
        do { try writer.finish(sync: false) } catch { throw AssetPackError(error) }
        try io(FileSystem.setPermissions(archive, 0o644))
        return packed
    }

    /// Adds `item` as the entry named by its logical path.
    private func add(_ item: SourceItem, to writer: ZipWriter, deflater: BlockDeflater?) throws(AssetPackError) -> PackedFile {
        let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: packer.followSymlinks)
        let bytes = try source.readWhole()
        let crc = CRC32.checksum(bytes)
        var method = CompressionMethod.stored
        var data = bytes
        if let deflater, !bytes.isEmpty {
            let compressed: [UInt8]
            do { compressed = try deflater.deflate(bytes) } catch { throw AssetPackError(error, path: item.sourcePath) }
            if PackingRules.saves(UInt64(compressed.count), of: UInt64(bytes.count), atLeast: packer.rules.minimumSaving) {
                method = .deflate
                data = compressed
            }
        }
        let sha256 = source.sha256
        let written: WrittenEntry
        do {
            written = try writer.addPrecompressed(item.path.string, method: method, crc32: crc, uncompressedSize: item.size,
                                                  compressedData: data, permissions: item.isExecutable ? 0o755 : 0o644)
        } catch {
            throw AssetPackError(error)
        }
        return PackedFile(crc32: crc, size: item.size, method: method, compressedSize: written.compressedSize,
                          sha256: sha256, dataOffset: written.dataOffset)
    }
}
