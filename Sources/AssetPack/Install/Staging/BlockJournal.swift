import AssetPackSystem

/// Which blocks of a block-indexed file (``BlockParallelExtraction``) are written, so that a run killed
/// in the middle of a large file resumes it instead of starting over: a small file beside it in the
/// staging tree, `.assetpack-tmp-blocks-NAME`, one byte per block, set to 1 (by its own `pwrite`) once the
/// block is written and checked. It is a hint, never trusted: the blocks it names are read back into the
/// entry's combined CRC-32. It is removed once the file is complete; the pruner removes one without its file.
final class BlockJournal: Sendable {
    /// The journal's file.
    let file: Descriptor

    private static let prefix = StagingNames.temporaryPrefix + "blocks-"

    /// The journal's name for the data file `name`: the prefix and the name, or when that would pass the
    /// 255-byte limit of a file name, the prefix and the name's SHA-256.
    static func name(for name: String) -> String {
        let plain = prefix + name
        if plain.utf8.count <= 255 { return plain }
        var hash = SHA256()
        hash.update(name)
        return prefix + hash.finalizeHex()
    }

    /// True for the name of a journal.
    static func isJournal(_ name: String) -> Bool { name.hasPrefix(prefix) }

    private init(file: Descriptor) { self.file = file }

    /// A new, empty journal for `name` in `folder` (one left over is replaced).
    static func create(for name: String, in folder: Descriptor) throws(AssetPackError) -> BlockJournal {
        let journal = Self.name(for: name)
        try io(folder.remove(journal))
        return BlockJournal(file: try io(folder.createFile(journal, readable: true)))
    }

    /// The journal of `name` in `folder`, opened to go on recording, or nil when there is none that this
    /// program can have made: a regular file with no other name (a hard link planted there would make the
    /// journal's writes land in a file elsewhere).
    static func open(for name: String, in folder: Descriptor) throws(AssetPackError) -> BlockJournal? {
        let journal = Self.name(for: name)
        guard let status = try io(folder.status(journal)), status.kind == .file, status.links == 1 else { return nil }
        let file = try io(folder.openFile(journal, [.readWrite, .nonBlocking]))
        guard let opened = try? file.status(), opened.kind == .file, opened.links == 1, opened.inode == status.inode else { return nil }
        return BlockJournal(file: file)
    }

    /// The blocks recorded as written, below `count` (the entry's number of blocks).
    func writtenBlocks(count: Int) throws(AssetPackError) -> Set<Int> {
        var flags = [UInt8](repeating: 0, count: count)
        let read = try flags.withMutableBytesThrowingAssetPackError { (buffer) throws(AssetPackError) -> Int in
            try io(file.fd.read(at: 0, into: buffer, path: file.path))
        }
        return Set((0..<read).filter { flags[$0] == 1 })
    }

    /// Records block `number` as written.
    func record(_ number: Int) throws(AssetPackError) {
        try record(number..<number + 1)
    }

    /// Records the blocks `numbers` as written, in one write.
    func record(_ numbers: Range<Int>) throws(AssetPackError) {
        let ones = UnsafeMutableRawBufferPointer.allocate(byteCount: numbers.count, alignment: 1)
        defer { ones.deallocate() }
        ones.initializeMemory(as: UInt8.self, repeating: 1)
        try io(file.fd.writeAll(UnsafeRawBufferPointer(ones), at: UInt64(numbers.lowerBound), path: file.path))
    }

    /// Forgets every block (the file is being written from the start).
    func clear() throws(AssetPackError) {
        try io(file.fd.truncate(to: 0, path: file.path))
    }

    /// Removes the journal of `name` from `folder`.
    static func remove(for name: String, in folder: Descriptor) throws(AssetPackError) {
        try io(folder.remove(Self.name(for: name)))
    }
}
