import AssetPackSystem
import AssetPackZip

/// Writes one file of a ``DeliveredBundleSource`` into the staging tree, for ``FileMaterializer`` (which
/// created the file, and gives it its permissions once this returned).
///
/// - A file without a block index is one delivery: the plain file (one `GET`), or the packed entry's
///   compressed bytes (one range of its archive, from ``BundleManifest/Storage/dataOffset``), inflated into the
///   file as they arrive; size, CRC-32 and SHA-256 are checked by its ``StagedFileSink``'s ``WriteCheck``.
/// - A file with a block index and block hashes (content-defined chunks, or blocks of a fixed size) is written
///   block by block (several at once, up to the delivery's ``BundleDelivery/concurrency``), each checked against
///   its SHA-256 and then recorded in the file's ``BlockJournal``: a block the journal records (a killed run) is
///   kept when its bytes still hash right; a block whose bytes a local copy holds (``ChunkSeeds``: the installed
///   copy, a seed folder, at any offset) is copied from it; only the others are delivered, adjacent ones in one
///   range (``BlockwiseWriter``). The file then has the manifest's CRC-32 (read back and computed only when the
///   manifest has none).
enum DeliveredFileWriter {
    /// Writes `item` into `file` (named `name` in `folder`) and returns its CRC-32 when it is a
    /// file delivered from `bundle`; nil for any other item. `kept`: blocks an interrupted run recorded in the journal.
    static func write(_ item: ExpansionItem, from bundle: DeliveredBundleSource?, into file: Descriptor, named name: String, in folder: Descriptor,
                      keeping kept: Set<Int>, progress: ProgressTracker, reportsBytes: Bool) throws(AssetPackError) -> UInt32? {
        guard let bundle, case .delivered(let layout) = item.origin else { return nil }
        let origin = ErrorLocation(bundle.name + "/" + layout.whole.file)
        let tracker = reportsBytes ? progress : nil
        guard let blocks = layout.blocks else {
            let sink = try StagedFileSink(file: file, at: 0, size: item.size, check: check(item, bundle, origin: origin),
                                          encoding: layout.deflated ? .deflated(endsStream: true) : .stored, progress: tracker)
            try bundle.delivery.deliver(layout.whole, into: sink)
            return sink.crc32
        }
        let seeds = try bundle.seeds(for: item.path, layout: layout, blocks: blocks)
        var opened = kept.isEmpty ? nil : try BlockJournal.open(for: name, in: folder)
        if opened == nil { opened = try BlockJournal.create(for: name, in: folder) }
        let journal = opened
        let clonedFrom = kept.isEmpty ? try clone(seeds.base ?? seeds.first, into: file, size: item.size) : nil
        let writer = BlockwiseWriter(file: file, blocks: blocks, patches: layout.patches, deflated: layout.deflated, delivery: bundle.delivery,
                                     path: item.path, origin: origin, progress: progress, tracker: tracker, clonedFrom: clonedFrom)
        let units = try BlockwiseWriter.plan(blocks, patches: layout.patches, kept: kept, staged: file, seeds: seeds, delivery: bundle.delivery)
        // Units are independent: several at once (each at its own offsets), as many as the delivery's connections.
        try WorkerThreads.run(count: units.count, jobs: bundle.delivery.concurrency) { (number, _) throws(AssetPackError) in
            try progress.checkCancelled()
            try writer.write(units[number], archive: layout.whole.file) { (block) throws(AssetPackError) in try journal?.record(block) }
        }
        // Every block matched its SHA-256 from the manifest, so the file has the manifest's CRC-32: reading it
        // back to compute it again would prove nothing more. Only a manifest without one makes it computed.
        if let recorded = item.crc32 { return recorded }
        return try FileChecksum.crc32(of: file)
    }

    /// Makes the new staging file `file` a clone of the local copy `source` (sharing its blocks: a reflink on Btrfs,
    /// XFS…), `size` bytes long, so that what an upgrade leaves unchanged is neither copied nor written; returns
    /// `source` when it did, nil when there is none or the file system cannot.
    private static func clone(_ source: Descriptor?, into file: Descriptor, size: UInt64) throws(AssetPackError) -> Descriptor? {
        guard let source, try io(file.fd.cloneContents(of: source.fd, path: file.path)) else { return nil }
        try io(file.fd.truncate(to: size, path: file.path))
        return source
    }

    /// The check of delivered `item` as a whole (size, CRC-32, SHA-256 as its manifest entry records), its
    /// bytes coming from `origin`.
    static func check(_ item: ExpansionItem, _ bundle: DeliveredBundleSource, origin: ErrorLocation) -> WriteCheck {
        WriteCheck(path: item.path, size: item.size, crc32: item.crc32, sha256: item.digest?.hex,
                   hasher: bundle.delivery.makeHasher(), claim: "recorded in the manifest", origin: origin)
    }
}
