import AssetPackSystem

/// The files an installed tree's record (`installed.json.gz`) lists, read one at a time in path order
/// (``OrderedRecord``) and looked up a window of paths at a time: what an upgrade compares each window of its plan
/// with (``UpgradeDiff``). Only the entry at hand is kept.
///
/// A window after the last one looked up is found by reading on; one before it (an archive's windows come
/// in its writer's order) reads the list again from its start.
final class RecordCursor {
    private let record: OrderedRecord
    /// The list at its start, kept when it was sorted in memory (starting again costs nothing then).
    private let start: RecordList<InstallRecord.File>?
    private var files: RecordList<InstallRecord.File>
    /// The last path of the last window looked up.
    private var lastAsked: [UInt8]?
    /// The recorded files with a SHA-256, inode and modification time, by SHA-256, read in a pass of their own the
    /// first time a file is looked up by content (``claim(_:)``); a file claimed is taken out. Empty for a record of
    /// more than ``contentIndexLimit`` such files: the index is held in memory, the record never is.
    private var byContent: [SHA256Digest: [InstallRecord.File]]?
    /// The most files ``claim(_:)`` indexes (about 20 MB); past it, renamed and moved files are fetched again.
    static let contentIndexLimit = 100_000

    /// A cursor over the record of `tree`; nil when it has none, or it is not a record.
    init?(tree: Descriptor) {
        guard let record = OrderedRecord(tree: tree) else { return nil }
        self.record = record
        files = record.files()
        start = record.isSorted ? files : nil
    }

    /// The recorded file at each of `paths` (item position and path, in path order) that the record lists, by
    /// position. Of a path listed twice, the first.
    func files(at paths: [(position: Int, path: [UInt8])]) -> [Int: InstallRecord.File] {
        guard let first = paths.first, let last = paths.last else { return [:] }
        if let lastAsked, !AssetPath.precedes(lastAsked, first.path) { files = start ?? record.files() }
        lastAsked = last.path
        var found: [Int: InstallRecord.File] = [:]
        for (position, path) in paths {
            files.skip(before: path)
            if let current = files.head, current.path == path { found[position] = current.entry }
        }
        return found
    }

    /// A recorded file with SHA-256 `digest` not claimed before (of an install, each is lent once), for an
    /// upgrade that finds a file renamed or moved; nil when there is none.
    func claim(_ digest: SHA256Digest) -> InstallRecord.File? {
        if byContent == nil {
            var index: [SHA256Digest: [InstallRecord.File]] = [:]
            var all = record.files()
            var count = 0
            while let (file, _) = all.head, count <= Self.contentIndexLimit {
                if file.inode != nil, file.mtime != nil, let sha256 = file.sha256.flatMap(SHA256Digest.init(hex:)) {
                    index[sha256, default: []].append(file)
                    count += 1
                }
                all.advance()
            }
            byContent = count <= Self.contentIndexLimit ? index : [:]
        }
        return byContent?[digest]?.popLast()
    }
}
