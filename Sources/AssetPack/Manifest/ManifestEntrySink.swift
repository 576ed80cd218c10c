import AssetPackZip

/// Receives a manifest's entries as they are read and checked (``BundleManifest/locate(in:into:)``), a run
/// at a time, in the manifest's order.
protocol ManifestEntrySink: AnyObject {
    /// Takes the next `entries`; `expectedCount`, when known, says about how many there are in all.
    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError)
}

/// The sink that keeps every entry: a manifest read whole.
final class ManifestEntryList: ManifestEntrySink {
    private var entries: [BundleManifest.Entry] = []

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) {
        if self.entries.isEmpty, (expectedCount ?? 0) <= entries.count {
            self.entries = entries  // the only run: taken as it is
            return
        }
        if self.entries.isEmpty, let expectedCount { self.entries.reserveCapacity(expectedCount) }
        self.entries.append(contentsOf: entries)
    }

    /// The entries taken, handed over.
    func take() -> [BundleManifest.Entry] {
        defer { entries = [] }
        return entries
    }
}

extension BundleManifest.Located {
    /// The same, its manifest with `entries`.
    func with(entries: [BundleManifest.Entry]) -> BundleManifest.Located {
        var manifest = manifest
        manifest.entries = entries
        return BundleManifest.Located(manifest: manifest)
    }
}

/// The sink that hands each entry to a closure as it is read, keeping none.
private final class ManifestEntryVisitor: ManifestEntrySink {
    private let visit: (BundleManifest.Entry) throws(AssetPackError) -> Void

    init(_ visit: @escaping (BundleManifest.Entry) throws(AssetPackError) -> Void) { self.visit = visit }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        for index in entries.indices { try visit(entries[index]) }
    }
}

extension BundleManifest {
    /// Reads the manifest of the bundle `source` as ``locate(in:)`` does (every check included), handing
    /// each entry to `visit` as it is read instead of keeping the list. Returns where the manifest was (its
    /// ``BundleManifest/entries`` empty); nil when `source` has no manifest. What `visit` throws (the first;
    /// it sees nothing after) is thrown once the manifest is known to be intact.
    package static func visitEntries(in source: any AssetSource,
                                     _ visit: (BundleManifest.Entry) throws(AssetPackError) -> Void) throws(AssetPackError) -> Located? {
        try withoutActuallyEscaping(visit) { (escaping) throws(AssetPackError) -> Located? in
            try locate(in: source, into: ManifestEntryVisitor(escaping))  // the visitor is dropped before this returns
        }
    }

    /// The identity of the manifest read from `stream`, checked as ``visitEntries(in:_:)`` checks it, when each
    /// of its files has a SHA-256: what a pinned identity (`ManifestTrust`) is compared with.
    /// - Throws: `.manifest` for a manifest that fails a check, or a file without a SHA-256.
    package static func identityOfHashedFiles(_ stream: any ByteStream, origin: String) throws(AssetPackError) -> String {
        let visitor = ManifestEntryVisitor { (entry) throws(AssetPackError) in
            guard entry.kind != .file || entry.sha256 != nil else {
                throw AssetPackError(.manifest, "\"\(entry.path)\" has no SHA-256: a bundle is pinned by its identity "
                                     + "only when each file has one (build it again, or sign it)", path: origin)
            }
        }
        return try read(stream, expectedSize: nil, origin: origin, into: visitor).identity
    }
}
