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
        for (earlier, later) in zip(patches, patches.dropFirst()) where later.bytes.lowerBound < earlier.bytes.upperBound {
            throw AssetPackError(.manifest, "the patch at bytes \(later.bytes.lowerBound)–\(later.bytes.upperBound) for \"\(later.entry)\" "
                                 + "overlaps the one before", path: name)
        }
        let stream: any ByteStream
        do { stream = try base.open(try AssetPath(file)) } catch where error.code == .notFound {
            throw AssetPackError(.manifest, "the manifest names patches in \"\(file)\", which the bundle lacks", path: name)
        }
        let decoder = try ChunkPatchDecoder()
        var splitter = RangeSplitter(patches.map(\.bytes), from: 0)
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { input.deallocate() }
        func located(_ error: AssetPackError, _ patch: Patch) -> AssetPackError {
            AssetPackError(.verification, "the patch at bytes \(patch.bytes.lowerBound)–\(patch.bytes.upperBound) for \"\(patch.entry)\": "
                           + error.message, path: name)
        }
        var started = -1
        while !splitter.isComplete {
            let count = try zipLayer(stream.read(into: input), path: name)
            guard count > 0 else {
                throw AssetPackError(.manifest, "the patch file ends at byte \(splitter.position), before the patches it holds do "
                                     + "(\(patches[patches.count - 1].bytes.upperBound))", path: name)
            }
            try splitter.split(UnsafeRawBufferPointer(rebasing: input[0..<count]), piece: { (index, piece) throws(AssetPackError) in
                if started != index {
                    decoder.start(outputSize: patches[index].outputSize, baseSize: patches[index].baseSize)
                    started = index
                }
                do throws(AssetPackError) { try decoder.feed(piece) { _ in } } catch { throw located(error, patches[index]) }
            }, ended: { (index) throws(AssetPackError) in
                do throws(AssetPackError) { try decoder.finish() } catch { throw located(error, patches[index]) }
            })
        }
    }
}
