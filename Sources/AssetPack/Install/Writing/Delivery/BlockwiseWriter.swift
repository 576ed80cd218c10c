import AssetPackSystem
import AssetPackZip

/// Puts the blocks of one block-indexed delivered file into its staging file (``DeliveredFileWriter``): each
/// block from the staging file itself (kept by an interrupted run), from the installed copy, or from the
/// delivery, and in every case only bytes that hash to the block's SHA-256.
struct BlockwiseWriter {
    let file: Descriptor
    let blocks: [DeliveredLayout.Block]
    /// The entry's whole compressed bytes (each block asks for a part of them).
    let request: DeliveryRequest
    let delivery: any BundleDelivery
    /// The file's path in the tree.
    let path: AssetPath
    /// Where its bytes come from: the bundle's file.
    let origin: ErrorLocation
    let progress: ProgressTracker
    /// `progress` when it counts bytes of this file, else nil.
    let tracker: ProgressTracker?

    /// Puts block `number` in place, from where ``source(of:kept:staged:installed:delivery:)`` finds it.
    func write(_ block: DeliveredLayout.Block, number: Int, kept: Bool, installed: InstalledCopy?) throws(AssetPackError) {
        let length = UInt64(block.uncompressed.count)
        switch try Self.source(of: block, kept: kept, staged: file, installed: installed, delivery: delivery) {
        case .staged:
            progress.resumed(bytes: tracker == nil ? 0 : length)
        case .installed(let copy):
            try BlockBytes.copy(block.uncompressed, from: copy.file, to: file)
            tracker?.advance(bytes: length)
        case .delivery:
            let check = WriteCheck(path: path, size: length, crc32: nil, sha256: block.sha256, hasher: delivery.makeHasher(),
                                   claim: "recorded in the manifest for block \(number)", origin: origin)
            let sink = try StagedFileSink(file: file, at: block.uncompressed.lowerBound, check: check, inflating: true,
                                          endsStream: block.isLast, progress: tracker)
            try delivery.deliver(Self.request(block, of: request), into: sink)
        }
    }

    /// Where the bytes of a block come from.
    enum Source { case staged, installed(InstalledCopy), delivery }

    /// Where `block` comes from: the staging file `staged` when `kept` (its journal records the block) and its
    /// bytes there hash to the block's SHA-256; else the installed copy when its bytes at the same offsets do;
    /// else the delivery. Reads, never writes: the install asks it before each block, a dry run to count requests.
    static func source(of block: DeliveredLayout.Block, kept: Bool, staged: Descriptor?, installed: InstalledCopy?,
                       delivery: any BundleDelivery) throws(AssetPackError) -> Source {
        if kept, let staged, try BlockBytes.sha256(of: staged, block.uncompressed, with: delivery.makeHasher()) == block.sha256 {
            return .staged
        }
        if let installed, try BlockBytes.sha256(of: installed.file, block.uncompressed, with: delivery.makeHasher()) == block.sha256 {
            return .installed(installed)
        }
        return .delivery
    }

    /// The request for `block`'s compressed bytes, a range of `whole` (its entry's).
    static func request(_ block: DeliveredLayout.Block, of whole: DeliveryRequest) -> DeliveryRequest {
        DeliveryRequest(file: whole.file, range: block.compressed, length: UInt64(block.compressed.count))
    }
}

/// The installed copy of a file (in the destination's current tree), read to lend blocks that did not change.
struct InstalledCopy {
    let file: Descriptor

    /// The regular file at `path` below `tree` (no link followed), when it is there; nil otherwise.
    static func open(_ path: AssetPath, in tree: String?) -> InstalledCopy? {
        guard let tree, let root = try? Descriptor.existingDirectory(atPath: tree),
              let folder = try? root.existingDirectory(at: path.parent.components),
              let status = try? folder.status(path.name), status.kind == .file,
              let file = try? folder.openFile(path.name) else { return nil }
        return InstalledCopy(file: file)
    }
}

/// Reading a byte range of an open file, 256 KiB at a time.
enum BlockBytes {
    /// The SHA-256 of bytes `range` of `file`, computed with `hasher`, or nil when the file ends before the
    /// range does.
    static func sha256(of file: Descriptor, _ range: Range<UInt64>, with hasher: any ContentHasher) throws(AssetPackError) -> String? {
        let complete = try read(range, of: file) { chunk, _ throws(AssetPackError) in hasher.update(chunk) }
        return complete ? hasher.finalizeHex() : nil
    }

    /// Copies bytes `range` of `source` to the same offsets of `target`.
    static func copy(_ range: Range<UInt64>, from source: Descriptor, to target: Descriptor) throws(AssetPackError) {
        let complete = try read(range, of: source) { chunk, offset throws(AssetPackError) in
            try io(target.fd.writeAll(chunk, at: offset, path: target.path))
        }
        guard complete else { throw AssetPackError(.io, "ended while it was copied", path: source.path) }
    }

    /// Hands `body` the bytes of `range` in order with their offsets; false when the file ends first.
    private static func read(_ range: Range<UInt64>, of file: Descriptor,
                             _ body: (UnsafeRawBufferPointer, UInt64) throws(AssetPackError) -> Void) throws(AssetPackError) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 64)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(min(UInt64(buffer.count), range.upperBound - offset))])
            let count = try io(file.fd.read(at: offset, into: wanted, path: file.path))
            if count == 0 { return false }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), offset)
            offset += UInt64(count)
        }
        return true
    }
}
