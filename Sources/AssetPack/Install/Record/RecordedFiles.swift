import AssetPackSystem

/// The files an installed tree's record (`installed.json`) lists, in path order, held in flat arrays: the
/// paths' bytes end to end, and each file's size, CRC-32, mode and SHA-256 (about 50 bytes a file, 90 with
/// SHA-256s, and no object per file; a table of the record by path takes several hundred). What an upgrade
/// compares each window of a plan with (``UpgradeDiff``), by binary search: a window may come in any order
/// (an archive's, as its writer stored it).
///
/// The record is sorted when it was not written in path order (a tree installed from an archive lists its
/// files in the archive's order). Files without a CRC-32, or with a SHA-256 that is not 64 hex digits
/// (neither is ever reused), are left out, and of a path listed twice the first counts.
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

    /// The record of `tree`, or nil when it has none or it cannot be read.
    static func read(of tree: Descriptor) -> RecordedFiles? {
        guard let file = InstallRecord.recordFile(of: tree) else { return nil }
        var files = RecordedFiles()
        var inOrder = true
        let header = InstallRecordReader.read(file, limit: InstallRecord.maxRecordSize, eachFile: { file in
            files.append(file, inOrder: &inOrder)
        }, eachDirectory: { _ in }, eachLink: { _ in })
        guard header != nil else { return nil }
        return inOrder ? files : files.sorted()
    }

    /// Adds `file` unless it could never be reused; `inOrder` becomes false when its path does not come after
    /// the last one's (a path read again counts as out of order: the sort keeps the first).
    private mutating func append(_ file: InstallRecord.File, inOrder: inout Bool) {
        let digest = file.sha256.flatMap(SHA256Digest.init(hex:))
        guard let crc = file.crc32, (digest == nil) == (file.sha256 == nil) else { return }  // never reused
        var path = file.path
        if inOrder, count > 0 {
            inOrder = path.withUTF8 { new in withPath(count - 1) { AssetPath.precedes($0, new) } }
        }
        append(path: path.utf8, File(size: file.size, crc32: crc, mode: file.mode, sha256: digest))
    }

    private mutating func append<Bytes: Sequence<UInt8>>(path: Bytes, _ file: File) {
        pathBytes.append(contentsOf: path)
        ends.append(pathBytes.count)
        sizes.append(file.size)
        crcs.append(file.crc32)
        modes.append(file.mode)
        if file.sha256 != nil && digests.isEmpty { digests = Array(repeating: nil, count: ends.count - 1) }
        if !digests.isEmpty { digests.append(file.sha256) }
    }

    /// The files in path order, the first of each path kept.
    private func sorted() -> RecordedFiles {
        var order = Array(0..<count)
        order.sort { one, other in
            withPath(one) { a in withPath(other) { b in AssetPath.precedes(a, b) || (a.elementsEqual(b) && one < other) } }
        }
        var result = RecordedFiles()
        for index in order {
            if result.count > 0, withPath(index, { new in result.withPath(result.count - 1) { $0.elementsEqual(new) } }) { continue }
            withPath(index) { result.append(path: $0, self[index]) }
        }
        return result
    }

    /// The index of the file whose path is `path`, or nil.
    /// - Complexity: O(log n) comparisons of paths.
    func find(_ path: UnsafeBufferPointer<UInt8>) -> Int? {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if withPath(middle, { AssetPath.precedes($0, path) }) { low = middle + 1 } else { high = middle }
        }
        return low < count && withPath(low, { $0.elementsEqual(path) }) ? low : nil
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
