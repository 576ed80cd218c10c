import AssetPack

/// What the packer will do with one item of the source tree.
struct PlannedEntry: Sendable {
    /// Create a folder, copy a file byte for byte, pack it as entry `entry` of the zip `archive`, or
    /// gather it into a pack archive with other small files (``PackGrouping``).
    enum Action: Sendable, Equatable {
        case directory
        case copy
        case pack(archive: AssetPath, entry: String)
        case gather
    }

    var item: SourceItem
    var action: Action
}

/// Decides, before any byte of it is written, what each item becomes in the bundle, so every file can then
/// be packed on its own and the result does not depend on the order. A packed file `dir/big.bin` goes to
/// `dir/big.bin.zip`, or `dir/big.bin.1.zip`, `.2.zip`, … when a sibling takes that name, even only differing
/// in case (``FolderNames``); the manifest records the name, so the expander never guesses.
///
/// Small files (``PackingRules/gathers(_:size:)``) are gathered into pack archives instead
/// (``PackGrouping``), named in the bookkeeping folder where no source name can clash.
enum BundlePlan {
    /// The plan for `item` under `rules`, among the names of its folder, `names` (an archive's name is
    /// added to them).
    /// - Throws: `.unsafePath` when an archive name would be longer than a file name may be.
    static func plan(_ item: SourceItem, names: FolderNames,
                     rules: PackingRules) throws(AssetPackError) -> PlannedEntry {
        switch item.kind {
        case .directory:
            return PlannedEntry(item: item, action: .directory)
        case .file where rules.packs(item.path, size: item.size):
            let archive = try archiveName(for: item, names: names)
            return PlannedEntry(item: item, action: .pack(archive: archive, entry: item.path.name))
        case .file:
            return PlannedEntry(item: item, action: rules.gathers(item.path, size: item.size) ? .gather : .copy)
        }
    }

    private static func archiveName(for item: SourceItem, names: FolderNames) throws(AssetPackError) -> AssetPath {
        var suffix = 0
        while true {
            let name = item.path.name + (suffix == 0 ? ".zip" : ".\(suffix).zip")
            if names.taken.insert(name.lowercased()).inserted {
                do {
                    return try item.path.parent.appending(name)
                } catch {
                    throw AssetPackError(error.code, "cannot name its archive: \(error.message)", path: item.sourcePath)
                }
            }
            suffix += 1
        }
    }
}
