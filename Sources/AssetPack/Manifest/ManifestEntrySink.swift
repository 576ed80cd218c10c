/// Receives a manifest's entries as they are read and checked (``BundleManifest/locate(in:into:)``), a run
/// at a time, in the manifest's order.
protocol ManifestEntrySink: AnyObject {
    /// Takes the next `entries`; `expectedCount`, when known, says about how many there are in all.
    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError)
    /// Forgets every entry taken so far: the manifest is read again from the start.
    func restart()
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

    func restart() { entries = [] }

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

/// The sink that hands each entry to a closure as it is read, keeping none; it notes when the reader
/// started over (a manifest not laid out as the packer writes it), after which the closure has seen
/// entries twice.
private final class ManifestEntryVisitor: ManifestEntrySink {
    private let visit: (BundleManifest.Entry) throws(AssetPackError) -> Void
    private(set) var restarted = false

    init(_ visit: @escaping (BundleManifest.Entry) throws(AssetPackError) -> Void) { self.visit = visit }

    func take(_ entries: [BundleManifest.Entry], expectedCount: Int?) throws(AssetPackError) {
        for index in entries.indices { try visit(entries[index]) }
    }

    func restart() { restarted = true }
}

extension BundleManifest {
    /// Reads the manifest of the bundle `source` as ``locate(in:)`` does (every check included), handing
    /// each entry to `visit` as it is read instead of keeping the list: a listing of a million-file bundle
    /// holds one run of entries at a time. Returns where the manifest was (its ``BundleManifest/entries``
    /// empty) and whether the reader started over, which it does for a manifest not laid out as the
    /// packer writes it: `visit` has then seen the first entries again. Nil when `source` has no manifest.
    /// What `visit` throws is thrown once the manifest is known to be intact (the first; it sees nothing after).
    package static func visitEntries(in source: any AssetSource,
                                     _ visit: (BundleManifest.Entry) throws(AssetPackError) -> Void)
        throws(AssetPackError) -> (located: Located, restarted: Bool)? {
        try withoutActuallyEscaping(visit) { (escaping) throws(AssetPackError) -> (located: Located, restarted: Bool)? in
            let visitor = ManifestEntryVisitor(escaping)  // dropped before this returns
            guard let located = try locate(in: source, into: visitor) else { return nil }
            return (located, visitor.restarted)
        }
    }
}
