import Foundation

extension BundleManifest {
    /// The manifest as deterministic JSON (sorted keys, pretty-printed, trailing newline).
    public func encodedJSON() throws(AssetPackError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(self)) + [0x0A]
        } catch {
            throw AssetPackError(.manifest, "cannot encode the manifest: \(error)")
        }
    }

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
        guard readableFormats.contains(manifest.format) else {
            throw AssetPackError(.manifest, "manifest format \(manifest.format) is not supported (this reads formats "
                                 + "\(readableFormats.lowerBound) to \(readableFormats.upperBound))", path: origin)
        }
        for entry in manifest.entries {
            do {
                _ = try AssetPath(entry.path)
            } catch {
                throw AssetPackError(.manifest, "manifest lists an \(error.message)", path: origin)
            }
            if entry.kind == .file, entry.size == nil || entry.crc32 == nil || entry.storage == nil {
                throw AssetPackError(.manifest, "manifest entry \"\(entry.path)\" lacks size, CRC-32 or storage", path: origin)
            }
            try entry.checkHashes(origin: origin)
        }
        return manifest
    }
}
