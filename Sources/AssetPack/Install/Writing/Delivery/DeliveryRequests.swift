import AssetPackSystem

/// The requests an install sends to a delivered bundle's ``BundleDelivery`` for the files it writes of one plan
/// window, worked out by the pieces that send them: the groups one request brings (``DeliveryGroups``), each other
/// file's whole data (``DeliveredLayout/whole``), and of a block-indexed file the runs of blocks neither the
/// staging tree nor a local copy holds, and the patches that make blocks from a local copy
/// (``BlockwiseWriter/plan(_:patches:kept:staged:seeds:delivery:)``). Reads (the
/// staged and local blocks, to hash them); never writes.
enum DeliveryRequests {
    /// The requests for the files at `positions` of `plan` (``UpgradeDiff/split(_:installed:recorded:left:repairing:)``'s
    /// `toWrite`), delivered by `bundle`; `partial`: the blocks an interrupted run's journals record, by position,
    /// in the staging tree `staging`, whose files are staged as `layout` says.
    static func of(_ positions: [Int], in plan: ExpansionPlan, bundle: DeliveredBundleSource, staging: Descriptor?,
                   layout: StagingLayout, partial: [Int: Set<Int>]) throws(AssetPackError) -> [DeliveryRequest] {
        let (groups, rest) = DeliveryGroups.of(positions, in: plan.items, coalescing: bundle.delivery.coalescing)
        var requests = groups.compactMap { DeliveryGroups.request(for: $0, in: plan.items) }
        let staged = try staging.map { (staging) throws(AssetPackError) in
            StagedFileFolders(staging: staging, layout: layout, flat: try layout.flatFolder(in: staging, making: false))
        }
        for position in rest {
            let item = plan.items[position]
            guard case .delivered(let layout) = item.origin else { continue }
            guard let blocks = layout.blocks else {
                requests.append(layout.whole)
                continue
            }
            let kept = partial[position] ?? []
            let file = kept.isEmpty ? nil : staged.flatMap { places in
                places.existingFolder(of: item.path).flatMap { try? $0.openFile(places.name(of: item.path)) }
            }
            let units = try BlockwiseWriter.plan(blocks, patches: layout.patches, kept: kept, staged: file,
                                                 seeds: bundle.seeds(for: item.path, layout: layout, blocks: blocks), delivery: bundle.delivery)
            for unit in units {
                switch unit {
                case .delivery(let numbers): requests.append(BlockwiseWriter.request(numbers, of: blocks, in: layout.whole.file))
                case .patched(let runs, _): if let patches = layout.patches { requests.append(BlockwiseWriter.request(patches: runs, of: patches)) }
                case .staged, .local: break
                }
            }
        }
        return requests
    }
}
