import AssetPackZip

/// Checks the patches a bundle's manifest lists (`BundleManifest.Storage.patches`), for ``BundleVerification``: each
/// patch file is in the bundle and holds every patch its entries name, and each patch inflates to instructions that
/// make exactly its chunks' length from a previous version of the size it names. What the instructions make is only
/// known with that previous version, which a bundle does not hold: an installer checks it against the chunks' SHA-256.
///
/// Reads each patch file once, front to back; holds the patches' places (four numbers each), never their bytes.
enum PatchVerification {
    /// One patch to read: where it is in its file, how many bytes it makes, from a previous version of how many.
    private struct Patch {
        let bytes: Range<UInt64>
        let outputSize: UInt64
        let baseSize: UInt64
        let entry: String
    }

    /// Checks the patches of the bundle `base`; returns how many there are.
    /// - Throws: `.manifest` for a patch file the bundle lacks or that is too short, `.verification` naming the patch
    ///   file and the entry for a patch that does not inflate or whose instructions do not fit.
    static func verify(_ base: any AssetSource) throws(AssetPackError) -> Int {
        var files: [String: [Patch]] = [:]
        _ = try BundleManifest.visitEntries(in: base) { (entry) throws(AssetPackError) in
            guard entry.storage?.patches != nil else { return }
            let layout = try DeliveredLayout(entry, origin: base.name)
            guard let patches = layout.patches, let blocks = layout.blocks else { return }
            for run in patches.runs {
                let output = blocks[run.chunks.upperBound - 1].uncompressed.upperBound - blocks[run.chunks.lowerBound].uncompressed.lowerBound
                files[patches.file, default: []].append(Patch(bytes: run.bytes, outputSize: output, baseSize: patches.baseSize, entry: entry.path))
            }
        }
        for (file, patches) in files.sorted(by: { $0.key < $1.key }) {
            try verify(patches.sorted { $0.bytes.lowerBound < $1.bytes.lowerBound }, in: file, of: base)
        }
        return files.values.reduce(0) { $0 + $1.count }
    }

    /// Reads the patch file `file` of `base` front to back through `patches` (in order of their bytes).
    private static func verify(_ patches: [Patch], in file: String, of base: any AssetSource) throws(AssetPackError) {
        let name = "\(base.name): \(file)"
        let stream: any ByteStream
        do { stream = try base.open(try AssetPath(file)) } catch where error.code == .notFound {
            throw AssetPackError(.manifest, "the manifest names patches in \"\(file)\", which the bundle lacks", path: name)
        }
        let inflater = try zipLayer(Inflater(), path: name)
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { input.deallocate(); output.deallocate() }
        var position: UInt64 = 0, pending = UnsafeRawBufferPointer(start: nil, count: 0)
        for patch in patches {
            func damage(_ why: String) -> AssetPackError {
                AssetPackError(.verification, "the patch at bytes \(patch.bytes.lowerBound)–\(patch.bytes.upperBound) for \"\(patch.entry)\" \(why)",
                               path: name)
            }
            guard patch.bytes.lowerBound >= position else { throw damage("overlaps the one before") }
            inflater.reset()
            var reader = ChunkPatch.Reader(outputSize: patch.outputSize, baseSize: patch.baseSize)
            var finished = false
            while position < patch.bytes.upperBound {
                if pending.isEmpty {
                    let count = try zipLayer(stream.read(into: input), path: name)
                    guard count > 0 else { throw AssetPackError(.manifest, "the patch file ends at byte \(position), before the patches it "
                                                                + "holds do (\(patch.bytes.upperBound))", path: name) }
                    pending = UnsafeRawBufferPointer(rebasing: input[0..<count])
                }
                let skipped = Int(min(UInt64(pending.count), patch.bytes.lowerBound > position ? patch.bytes.lowerBound - position : 0))
                pending = UnsafeRawBufferPointer(rebasing: pending[skipped...])
                position += UInt64(skipped)
                guard position >= patch.bytes.lowerBound, !pending.isEmpty else { continue }
                var piece = UnsafeRawBufferPointer(rebasing: pending[..<Int(min(UInt64(pending.count), patch.bytes.upperBound - position))])
                pending = UnsafeRawBufferPointer(rebasing: pending[piece.count...])
                position += UInt64(piece.count)
                while !piece.isEmpty || !finished {
                    if finished { throw damage("has bytes after its deflate stream") }
                    let step: Inflater.Step
                    do { step = try inflater.inflate(piece, into: output) } catch { throw damage("does not inflate: \(error.message)") }
                    piece = UnsafeRawBufferPointer(rebasing: piece[step.consumed...])
                    do {
                        try reader.read(UnsafeRawBufferPointer(rebasing: output[0..<step.produced])) { _ in }
                    } catch { throw damage(error.message) }
                    finished = step.finished
                    if step.produced < output.count && (piece.isEmpty || step.consumed == 0) && !finished { break }
                }
            }
            guard finished, reader.isComplete else { throw damage("ends before its instructions make its \(patch.outputSize) bytes") }
        }
    }
}
