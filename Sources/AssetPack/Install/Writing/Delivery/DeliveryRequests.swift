import AssetPackSystem

/// The requests an install sends to a delivered bundle's ``BundleDelivery`` for the files it writes of one plan
/// window, worked out by the pieces that send them: the groups one request brings (``DeliveryGroups``), each other
/// file's whole data (``DeliveredLayout/whole``), and of a block-indexed file the blocks neither the staging tree
/// nor the installed copy holds (``BlockwiseWriter/source(of:kept:staged:installed:delivery:)``). Reads (the
/// staged and installed blocks, to hash them); never writes.
enum DeliveryRequests {
    /// The requests for the files at `positions` of `plan` (``UpgradeDiff/split(_:installed:recorded:left:repairing:)``'s
    /// `toWrite`), delivered by `bundle`; `partial`: the blocks an interrupted run's journals record, by position,
    /// in the staging tree `staging`.
    static func of(_ positions: [Int], in plan: ExpansionPlan, bundle: DeliveredBundleSource, staging: Descriptor?,
                   partial: [Int: Set<Int>]) throws(AssetPackError) -> [DeliveryRequest] {
        let (groups, rest) = DeliveryGroups.of(positions, in: plan.items, coalescing: bundle.delivery.coalescing)
        var requests = groups.compactMap { DeliveryGroups.request(for: $0, in: plan.items) }
        let staged = staging.map(DirectoryCursor.init(root:))
        for position in rest {
            let item = plan.items[position]
            guard case .delivered(let layout) = item.origin else { continue }
            guard let blocks = layout.blocks else {
                requests.append(layout.whole)
                continue
            }
            let kept = partial[position] ?? []
            let file = kept.isEmpty ? nil : staged?.existingParent(ofPath: item.path.string).flatMap { try? $0.openFile(item.path.name) }
            let installed = InstalledCopy.open(item.path, in: bundle.installedTree)
            for (number, block) in blocks.enumerated() {
                let source = try BlockwiseWriter.source(of: block, kept: kept.contains(number), staged: file, installed: installed,
                                                        delivery: bundle.delivery)
                if case .delivery = source { requests.append(BlockwiseWriter.request(block, of: layout.whole)) }
            }
        }
        return requests
    }
}
