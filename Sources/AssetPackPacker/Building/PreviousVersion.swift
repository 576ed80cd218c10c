import AssetPack
import AssetPackSystem
import AssetPackZip

/// The chunks of a file's version in the bundle a build replaces, read one by one from its archive (each chunk of a
/// deflated entry inflates on its own), for ``PatchMaker``.
struct PreviousVersion {
    /// Where each chunk is, in the file and in the entry's data.
    let spans: [DeflateBlockIndex.Span]
    /// The SHA-256 of each chunk.
    let hashes: [String]
    private let archive: FileDescriptor
    private let path: String
    private let dataOffset: UInt64
    private let deflated: Bool

    /// The previous version of entry `entry` of the bundle at `root`.
    /// - Throws: when the entry has no chunk index, or its archive does not open.
    init(entry: BundleManifest.Entry, in root: String) throws(AssetPackError) {
        guard let storage = entry.storage, storage.form == .packed, let pairs = storage.blocks, let hashes = storage.blockSHA256,
              let size = entry.size, let compressed = storage.compressedSize, let dataOffset = storage.dataOffset,
              storage.method == "deflate" || storage.method == "stored" else {
            throw AssetPackError(.manifest, "the previous entry \"\(entry.path)\" has no chunk index")
        }
        do { spans = try DeflateBlockIndex(pairs: pairs).spans(uncompressedSize: size, compressedSize: compressed) } catch {
            throw AssetPackError(error)
        }
        guard spans.count == hashes.count, let file = try? AssetPath(storage.file) else {
            throw AssetPackError(.manifest, "the previous entry \"\(entry.path)\" has a chunk index that does not fit")
        }
        self.hashes = hashes
        self.path = root + "/" + file.string
        self.archive = try io(FileDescriptor.open(path, [.noFollow]))
        self.dataOffset = dataOffset
        self.deflated = storage.method == "deflate"
    }

    /// Closes the archive.
    func close() { archive.close() }

    /// The bytes `range` of the previous version.
    func bytes(_ range: Range<UInt64>) throws(AssetPackError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        let first = spans.firstIndex { $0.uncompressed.upperBound > range.lowerBound } ?? spans.count
        for span in spans[first...] where span.uncompressed.lowerBound < range.upperBound {
            let chunk = try self.chunk(span)
            let from = Int(max(range.lowerBound, span.uncompressed.lowerBound) - span.uncompressed.lowerBound)
            let to = Int(min(range.upperBound, span.uncompressed.upperBound) - span.uncompressed.lowerBound)
            bytes += chunk[from..<to]
        }
        guard bytes.count == range.count else { throw AssetPackError(.verification, "the previous version is shorter", path: path) }
        return bytes
    }

    /// The bytes of the chunk at `span`.
    private func chunk(_ span: DeflateBlockIndex.Span) throws(AssetPackError) -> [UInt8] {
        let input = try Self.buffer(dataOffset + span.compressed.lowerBound..<dataOffset + span.compressed.upperBound, of: archive, path: path)
        defer { input.deallocate() }
        guard deflated else { return Array(input) }
        let inflater = try zipLayer(Inflater(), path: path)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: span.uncompressed.count, alignment: 16)
        defer { output.deallocate() }
        var (consumed, produced) = (0, 0)
        while produced < output.count {
            let step = try zipLayer(inflater.inflate(UnsafeRawBufferPointer(rebasing: input[consumed...]),
                                                     into: UnsafeMutableRawBufferPointer(rebasing: output[produced...])), path: path)
            consumed += step.consumed
            produced += step.produced
            if step.finished || (step.consumed == 0 && step.produced == 0) { break }
        }
        guard produced == output.count else { throw AssetPackError(.verification, "a chunk of the previous version is short", path: path) }
        return Array(output)
    }

    /// The bytes `range` of `file` (at `path`).
    static func read(_ range: Range<UInt64>, of file: FileDescriptor, path: String) throws(AssetPackError) -> [UInt8] {
        let bytes = try buffer(range, of: file, path: path)
        defer { bytes.deallocate() }
        return Array(bytes)
    }

    /// The bytes `range` of `file` (at `path`) in a new buffer, which the caller deallocates.
    private static func buffer(_ range: Range<UInt64>, of file: FileDescriptor, path: String) throws(AssetPackError) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: range.count, alignment: 16)
        var done = 0
        while done < buffer.count {
            let count: Int
            do { count = try file.read(at: range.lowerBound + UInt64(done), into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), path: path) } catch {
                buffer.deallocate()
                throw AssetPackError(error)
            }
            guard count > 0 else {
                buffer.deallocate()
                throw AssetPackError(.verification, "the file ends before byte \(range.upperBound)", path: path)
            }
            done += count
        }
        return buffer
    }
}
