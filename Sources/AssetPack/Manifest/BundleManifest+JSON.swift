import Foundation

extension BundleManifest {
    /// The manifest as deterministic JSON: sorted keys, no white space inside a value, one entry per line
    /// (so line tools and diffs still work on it), trailing newline. Compact because it is read at every
    /// expansion and fetched by every remote client: pretty-printed, 50,000 small files made 22 MB of it,
    /// this spelling about two thirds of that.
    /// - Throws: `.limitExceeded` when the text would be longer than ``maxEncodedSize``, which no reader
    ///   would take: a bundle that could not be expanded is not written.
    public func encodedJSON() throws(AssetPackError) -> [UInt8] {
        try encodedJSON(limit: Self.maxEncodedSize)
    }

    /// ``encodedJSON()`` with another limit (tests).
    func encodedJSON(limit: Int) throws(AssetPackError) -> [UInt8] {
        let json = try compactJSON()
        guard json.count <= limit else {
            throw AssetPackError(.limitExceeded, "the manifest of \(entries.count) entries would take \(ByteCount.text(UInt64(json.count))), "
                                 + "more than the \(ByteCount.text(UInt64(limit))) a reader accepts: split the tree into several bundles")
        }
        return json
    }

    /// The text ``encodedJSON()`` writes.
    private func compactJSON() throws(AssetPackError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            // The other members, in sorted order after "entries", which sorts first.
            var rest = self
            rest.entries = []
            let header = Array(try encoder.encode(rest))
            let opening = Array(#"{"entries":[]"#.utf8)
            guard header.starts(with: opening) else {
                throw AssetPackError(.manifest, "cannot encode the manifest: its members do not start with \"entries\"")
            }
            var json = Array(#"{"entries":["#.utf8)
            for (index, entry) in entries.enumerated() {
                json.append(contentsOf: index == 0 ? [0x0A] : [UInt8(ascii: ","), 0x0A])
                json.append(contentsOf: try encoder.encode(entry))
            }
            if !entries.isEmpty { json.append(0x0A) }
            json.append(UInt8(ascii: "]"))
            json.append(contentsOf: header[opening.count...])
            json.append(0x0A)
            return json
        } catch let error as AssetPackError {
            throw error
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
