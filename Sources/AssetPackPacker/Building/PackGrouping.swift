import AssetPack

/// One pack archive of a folder bundle: a zip in the bookkeeping folder holding several small files, each
/// as an entry named by its logical path (so `unzip` of a pack gives back that part of the tree).
struct PackGroup: Sendable, Equatable {
    /// The archive's path in the bundle.
    var archive: AssetPath
    /// The members, in path order.
    var members: [SourceItem]
    /// Uncompressed bytes of all members.
    var size: UInt64
}

/// Gathers small files into pack archives as the walk hands them over: consecutive small files of the
/// walk (so a folder's files go together, and a changed file repacks only its own archive), a new archive
/// when the next member would take the current one past the budget. Archives are named
/// `assetpack-meta/packs/N.zip`, numbered from 1 in path order: inside the bookkeeping folder no source
/// name can clash with them, and the logical tree (``BundleManifest/reservedDirectory`` is hidden) never
/// shows them. Only the pack being filled is held.
package struct PackGrouping {
    /// The folder of a bundle that holds its pack archives.
    package static let folder = BundleManifest.reservedDirectory + "/packs"

    /// The most uncompressed bytes of a pack, unless it holds a single file.
    let budget: UInt64
    /// The pack being filled.
    private(set) var open: PackGroup?
    private var count = 0

    /// Packs of at most `budget` bytes each.
    init(budget: UInt64) { self.budget = budget }

    /// Adds `item` to the open pack, or to a new one when it does not fit; returns the pack it closed then.
    mutating func add(_ item: SourceItem) -> PackGroup? {
        if open != nil, open!.size + item.size <= budget {
            open!.members.append(item)
            open!.size += item.size
            return nil
        }
        let closed = open
        count += 1
        open = PackGroup(archive: Self.name(count), members: [item], size: item.size)
        return closed
    }

    /// Closes the open pack, which is returned (nil when there is none).
    mutating func finish() -> PackGroup? {
        defer { open = nil }
        return open
    }

    /// The bundle path of pack number `number`.
    static func name(_ number: Int) -> AssetPath {
        // Digits and a fixed folder: always a valid path.
        try! AssetPath(folder + "/\(number).zip")
    }
}
