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
        return BundleManifest.Located(manifest: manifest, directory: directory)
    }
}
