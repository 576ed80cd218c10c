import Foundation

extension BundleManifest {
    /// Parses and checks a manifest: known format, valid paths, files with size, CRC and storage. The JSON
    /// is read in place, member by member, by an internal direct reader (`JSONDecoder` spent about 80,000
    /// instructions on each entry, `JSONBytesDecoder` through `Decodable` about 100,000 in a release build);
    /// a text that reader does not take on goes to `JSONBytesDecoder`, which decides and words the error.
    /// - Parameters:
    ///   - bytes: the manifest's JSON.
    ///   - origin: the path it was read from, for error messages.
    public static func decode(_ bytes: [UInt8], origin: String) throws(AssetPackError) -> BundleManifest {
        let manifest: BundleManifest
        do {
            // The direct reader takes the usual text; anything else goes through `Decodable`, which words the error.
            manifest = try ManifestDirectReader.manifest(bytes) ?? JSONBytesDecoder.decode(BundleManifest.self, from: bytes)
        } catch {
            throw AssetPackError(.manifest, "manifest is not valid: \(error)", path: origin)
        }
        try manifest.checkContents(origin: origin)
        return manifest
    }

    /// Checks a parsed manifest: a known format (``checkFormat(origin:)``) and its entries
    /// (``checkEntries(_:origin:)``).
    func checkContents(origin: String) throws(AssetPackError) {
        try checkFormat(origin: origin)
        try Self.checkEntries(entries, origin: origin)
    }

    /// Throws `.manifest` for a format this code does not read.
    func checkFormat(origin: String) throws(AssetPackError) {
        guard Self.readableFormats.contains(format) else {
            throw AssetPackError(.manifest, "manifest format \(format) is not supported (this reads formats "
                                 + "\(Self.readableFormats.lowerBound) to \(Self.readableFormats.upperBound))", path: origin)
        }
    }

    /// Checks entries of a manifest: valid paths, files with size, CRC and storage, and well-formed hashes.
    static func checkEntries(_ entries: [Entry], origin: String) throws(AssetPackError) {
        // By index, each entry read in place: a copy of each would retain and release its strings.
        for index in entries.indices {
            do {
                _ = try AssetPath(entries[index].path)
            } catch {
                throw AssetPackError(.manifest, "manifest lists an \(error.message)", path: origin)
            }
            if entries[index].kind == .file, entries[index].size == nil || entries[index].crc32 == nil || entries[index].storage == nil {
                throw AssetPackError(.manifest, "manifest entry \"\(entries[index].path)\" lacks size, CRC-32 or storage", path: origin)
            }
            try entries[index].checkHashes(origin: origin)
        }
    }
}
