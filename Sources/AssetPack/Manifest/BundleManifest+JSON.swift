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
}
