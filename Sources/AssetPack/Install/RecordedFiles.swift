import AssetPackSystem

/// The files an installed tree's record (`installed.json`) lists, in path order, held in flat arrays: the
/// paths' bytes end to end, and each file's size, CRC-32, mode and SHA-256 (about 50 bytes a file, 90 with
/// SHA-256s, and no object per file; a table of the record by path takes several hundred). What an upgrade
/// compares a plan, or each window of one, with (``UpgradeDiff``): both are in path order, so one cursor
/// walks the record beside the plan.
///
/// Files without a CRC-32, or with a SHA-256 that is not 64 hex digits (neither is ever reused), are left
/// out, and of a path listed twice the first counts.
struct RecordedFiles {
    /// One file's recorded attributes.
    struct File {
        let size: UInt64
        let crc32: UInt32
        let mode: UInt32
        let sha256: SHA256Digest?
    }

    private var pathBytes: [UInt8] = []
    /// Where each path ends in ``pathBytes``.
    private var ends: [Int] = []
    private var sizes: [UInt64] = []
    private var crcs: [UInt32] = []
    private var modes: [UInt32] = []
    /// Empty until a file has a SHA-256; then one for each file (nil for those without).
    private var digests: [SHA256Digest?] = []

    /// How many files.
    var count: Int { ends.count }

    /// The record of `tree`, or nil when it has none, it cannot be read, or its files are not in path order
    /// (a record edited by hand: ``UpgradeDiff`` then reads it into a table by path).
    static func read(of tree: Descriptor) -> RecordedFiles? {
        guard let file = InstallRecord.recordFile(of: tree) else { return nil }
        var files = RecordedFiles()
        var inOrder = true
        var previous: String?
        let header = InstallRecordReader.read(file, limit: InstallRecord.maxRecordSize, eachFile: { file in
            if inOrder { inOrder = files.append(file, after: &previous) }
        }, eachDirectory: { _ in }, eachLink: { _ in })
        guard header != nil, inOrder else { return nil }
        return files
    }

    /// Adds `file`, read after `previous` (the path read before it, if any); false when its path comes
    /// before that one. A path read again is skipped, and so is a file that could never be reused.
    private mutating func append(_ file: InstallRecord.File, after previous: inout String?) -> Bool {
        var path = file.path
        if var last = previous {
            let isAfter = last.withUTF8 { before in path.withUTF8 { AssetPath.precedes(before, $0) } }
            if !isAfter { return last.withUTF8 { before in path.withUTF8 { before.elementsEqual($0) } } }
        }
        previous = path
        let digest = file.sha256.flatMap(SHA256Digest.init(hex:))
        guard let crc = file.crc32, (digest == nil) == (file.sha256 == nil) else { return true }  // never reused
        path.withUTF8 { pathBytes.append(contentsOf: $0) }
        ends.append(pathBytes.count)
        sizes.append(file.size)
        crcs.append(crc)
        modes.append(file.mode)
        if digest != nil && digests.isEmpty { digests = Array(repeating: nil, count: ends.count - 1) }
        if !digests.isEmpty { digests.append(digest) }
        return true
    }

    /// Calls `body` with the bytes of file `index`'s path.
    func withPath<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        pathBytes.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[(index == 0 ? 0 : ends[index - 1])..<ends[index]]))
        }
    }

    /// File `index`'s attributes.
    subscript(index: Int) -> File {
        File(size: sizes[index], crc32: crcs[index], mode: modes[index], sha256: digests.isEmpty ? nil : digests[index])
    }
}
