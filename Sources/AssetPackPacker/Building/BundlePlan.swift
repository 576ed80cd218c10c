import AssetPack

/// What the packer will do with one item of the source tree.
struct PlannedEntry: Sendable {
    /// Create a folder, copy a file byte for byte, pack it as entry `entry` of the zip `archive`, or
    /// gather it into pack archive number `pack` of ``BundleLayout/packs`` with other small files.
    enum Action: Sendable, Equatable {
        case directory
        case copy
        case pack(archive: AssetPath, entry: String)
        case gather(pack: Int)
    }

    var item: SourceItem
    var action: Action
}

/// Decides, before any byte is written, what each item becomes in the bundle — so every file can then be
/// packed on its own (in any order, or in parallel) and the result does not depend on that order.
///
/// A packed file `dir/big.bin` goes to `dir/big.bin.zip` holding the entry `big.bin`. When that name is
/// already taken — the source holds a `dir/big.bin.zip` too, or a name differing only in case, which would
/// clash on a case-insensitive file system — the archive is named `dir/big.bin.1.zip`, `.2.zip`, … instead.
/// The manifest records the name, so the expander never guesses.
///
/// Small files (``PackingRules/gathers(_:size:)``) are gathered into pack archives instead
/// (``PackGrouping``), named in the bookkeeping folder where no source name can clash.
enum BundlePlan {
    /// The plan for `items` (in walking order) under `rules`, with the pack archives small files go to.
    /// - Throws: `.unsafePath` when an archive name would be longer than a file name may be.
    static func layout(_ items: [SourceItem], rules: PackingRules) throws(AssetPackError) -> BundleLayout {
        var entries = try make(items, rules: rules)
        let packs = PackGrouping.groups(of: entries.indices.filter { entries[$0].action == .copy && rules.gathers(entries[$0].item.path, size: entries[$0].item.size) }
                                            .map { ($0, entries[$0].item) }, budget: rules.packSize)
        for (number, pack) in packs.enumerated() {
            for position in pack.positions { entries[position].action = .gather(pack: number) }
        }
        return BundleLayout(entries: entries, packs: packs)
    }

    /// The plan for `items` (in walking order) under `rules`, every small file copied.
    /// - Throws: `.unsafePath` when an archive name would be longer than a file name may be.
    static func make(_ items: [SourceItem], rules: PackingRules) throws(AssetPackError) -> [PlannedEntry] {
        var taken = Set(items.map { $0.path.string.lowercased() })
        var plan: [PlannedEntry] = []
        plan.reserveCapacity(items.count)
        for item in items {
            switch item.kind {
            case .directory:
                plan.append(PlannedEntry(item: item, action: .directory))
            case .file where rules.packs(item.path, size: item.size):
                let archive = try archiveName(for: item, taken: &taken)
                plan.append(PlannedEntry(item: item, action: .pack(archive: archive, entry: item.path.name)))
            case .file:
                plan.append(PlannedEntry(item: item, action: .copy))
            }
        }
        return plan
    }

    private static func archiveName(for item: SourceItem, taken: inout Set<String>) throws(AssetPackError) -> AssetPath {
        var suffix = 0
        while true {
            let name = item.path.name + (suffix == 0 ? ".zip" : ".\(suffix).zip")
            let parent = item.path.parent
            let full = parent.isRoot ? name : parent.string + "/" + name
            if taken.insert(full.lowercased()).inserted {
                do {
                    return try parent.appending(name)
                } catch {
                    throw AssetPackError(error.code, "cannot name its archive: \(error.message)", path: item.sourcePath)
                }
            }
            suffix += 1
        }
    }
}
