import AssetPackZip

/// What lets the up-to-date check answer for an archive given as the source (`assetpack expand app.zip`),
/// which has no `.assetpack/identity` of its own, without planning it: a SHA-256 over what the archive's
/// central directory (already read when the source was opened) says about every entry — name, method,
/// flags, sizes, CRC-32, mode — plus the root folder and the options that change the tree. Recorded
/// beside the stamp (`.assetpack/source`); an archive whose fingerprint differs is simply planned. Version
/// 2 covers the entries' modes (an install recorded under 1 is planned again, which puts its modes right).
enum SourceFingerprint {
    /// The fingerprint of a source stored as `storage` expanded with `options`, or nil when it has none
    /// (it is no archive, ``AssetStorage/archive(_:root:)``, or its directory can no longer be read).
    /// - Complexity: O(entries), about a microsecond per entry.
    static func of(_ storage: AssetStorage, options: ExpansionOptions) -> String? {
        guard case .archive(let archive, let root) = storage else { return nil }
        var hash = SHA256()
        hash.update("assetpack-zip-fingerprint-2\n\(root.utf8.count):\(root)\n\(options.recordTag)\n")
        var fields: [UInt8] = []
        fields.reserveCapacity(32)
        // Read as a stream: an archive too large to hold its entries is not made to (ZipLimits.maxHeldDirectoryBytes).
        var scanner = archive.entries()
        while true {
            let next: ZipEntry?
            do { next = try scanner.next() } catch { return nil }  // the archive changed: planned, and refused there
            guard let entry = next else { break }
            fields.removeAll(keepingCapacity: true)
            append(UInt64(entry.rawNameCount) << 48 | UInt64(entry.method.rawValue) << 32 | UInt64(entry.crc32), to: &fields)
            append(UInt64(entry.versionMadeBy) << 48 | UInt64(entry.flags) << 32 | UInt64(entry.externalAttributes), to: &fields)
            append(entry.compressedSize, to: &fields)
            append(entry.uncompressedSize, to: &fields)
            // The decoded name follows when it is not simply the raw bytes (CP437, a Unicode path field).
            let decoded = !entry.nameIsRawBytes
            fields.append(decoded ? 1 : 0)
            if decoded { append(UInt64(entry.name.utf8.count), to: &fields) }
            hash.update(fields)
            if decoded {
                hash.update(entry.rawName)
                hash.update(entry.name)
            } else {
                hash.update(entry.name)  // the raw bytes are the name's UTF-8
            }
        }
        return hash.finalizeHex()
    }

    private static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
