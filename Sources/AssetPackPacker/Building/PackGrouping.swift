import AssetPack

/// The plan of a folder bundle: what each source item becomes, and the pack archives small files go to.
struct BundleLayout: Sendable {
    /// Every item in walking order; a gathered file names its pack (``PlannedEntry/Action/gather(pack:)``).
    var entries: [PlannedEntry]
    /// The pack archives, in the order of their first member.
    var packs: [PackGroup]
}

/// One pack archive of a folder bundle: a zip in the bookkeeping folder holding several small files, each
/// as an entry named by its logical path (so `unzip` of a pack gives back that part of the tree).
struct PackGroup: Sendable, Equatable {
    /// The archive's path in the bundle.
    var archive: AssetPath
    /// The members, in walking order.
    var members: [SourceItem]
    /// Their positions in ``BundleLayout/entries``.
    var positions: [Int]
    /// Uncompressed bytes of all members.
    var size: UInt64
}

/// Gathers small files into pack archives: consecutive files of the walk (so a folder's files go
/// together, and a changed file repacks only its own archive), a new archive when the next member would
/// take the current one past the budget. Archives are named `assetpack-meta/packs/N.zip`, numbered from 1
/// in walking order: inside the bookkeeping folder no source name can clash with them, and the logical
/// tree (``BundleManifest/reservedDirectory`` is hidden) never shows them.
package enum PackGrouping {
    /// The folder of a bundle that holds its pack archives.
    package static let folder = BundleManifest.reservedDirectory + "/packs"

    /// The packs for `files` (position in the plan, item), in walking order, each at most `budget`
    /// uncompressed bytes unless it holds a single file.
    static func groups(of files: [(Int, SourceItem)], budget: UInt64) -> [PackGroup] {
        var packs: [PackGroup] = []
        for (position, item) in files {
            if let last = packs.last, last.size + item.size <= budget || last.members.isEmpty {
                packs[packs.count - 1].members.append(item)
                packs[packs.count - 1].positions.append(position)
                packs[packs.count - 1].size += item.size
            } else {
                packs.append(PackGroup(archive: name(packs.count + 1), members: [item], positions: [position], size: item.size))
            }
        }
        return packs
    }

    /// The bundle path of pack number `number`.
    static func name(_ number: Int) -> AssetPath {
        // Digits and a fixed folder: always a valid path.
        try! AssetPath(folder + "/\(number).zip")
    }
}
