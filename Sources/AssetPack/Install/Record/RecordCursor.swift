import AssetPackSystem

/// The files an installed tree's record (`installed.json`) lists, read one at a time in the record's order —
/// path order, as ``InstallRecordLists`` writes every record — and looked up a window of paths at a time: what an
/// upgrade compares each window of its plan with (``UpgradeDiff``). Only the entry at hand is kept, so an upgrade
/// of a million files holds none of its record.
///
/// A window whose paths all come after the last one looked up is found by reading on (a merge of two lists in
/// path order); one that comes before (an archive's windows come in its writer's order) reads the record again
/// from its start. A record that does not say it is in path order (`"collation":"path"`: one written before
/// 2026-11-28) is read whole for each window, its paths matched against the window's: slower, never wrong.
final class RecordCursor {
    private let tree: Descriptor
    private var reader: InstallRecordReader?
    /// The entry at hand and its path's bytes; the last path of the last window looked up.
    private var head: (file: InstallRecord.File, path: [UInt8])?
    private var lastAsked: [UInt8]?
    /// True when the record does not say it is in path order.
    private var unordered = false

    /// A cursor over the record of `tree`; nil when it has none, or it is not a record.
    init?(tree: Descriptor) {
        self.tree = tree
        guard restart() else { return nil }
        unordered = reader?.collation != InstallRecordJSON.collation
    }

    /// The recorded file at each of `paths` (item position and path, in path order) that the record lists, by
    /// position. Of a path listed twice, the first.
    func files(at paths: [(position: Int, path: [UInt8])]) -> [Int: InstallRecord.File] {
        guard let first = paths.first, let last = paths.last else { return [:] }
        guard !unordered else { return scan(paths) }
        let merged = merge(paths, startsAfterLast: lastAsked.map { AssetPath.precedes($0, first.path) } ?? true)
        lastAsked = last.path
        return merged
    }

    /// `paths` found by reading on from the entry at hand (from the start, when they do not come after the last
    /// ones).
    private func merge(_ paths: [(position: Int, path: [UInt8])], startsAfterLast: Bool) -> [Int: InstallRecord.File] {
        if !startsAfterLast { guard restart() else { return [:] } }
        var found: [Int: InstallRecord.File] = [:]
        for (position, path) in paths {
            while let current = head, AssetPath.precedes(current.path, path) { advance() }
            if let current = head, current.path == path { found[position] = current.file }
        }
        return found
    }

    /// `paths` found by reading the whole record once.
    private func scan(_ paths: [(position: Int, path: [UInt8])]) -> [Int: InstallRecord.File] {
        guard restart() else { return [:] }
        var wanted: [[UInt8]: Int] = [:]
        for (position, path) in paths { wanted[path] = position }
        var found: [Int: InstallRecord.File] = [:]
        while let current = head {
            if let position = wanted.removeValue(forKey: current.path) { found[position] = current.file }
            advance()
        }
        return found
    }

    /// Opens the record again at its first file; false when it cannot be read as a record.
    @discardableResult
    private func restart() -> Bool {
        guard let file = InstallRecord.recordFile(of: tree),
              let list = InstallRecordReader.list("files", of: file, limit: InstallRecord.maxRecordSize) else {
            reader = nil
            head = nil
            return false
        }
        reader = list
        advance()
        return true
    }

    private func advance() {
        guard let file = reader?.nextFile() else { return head = nil }
        head = (file, Array(file.path.utf8))
    }
}
