import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// Makes the patches of a file that changed since the bundle a build replaces (`BundleManifest.Storage.Patches`):
/// each run of its new chunks that the previous version lacks is looked for in the stretch of the previous version
/// between the chunks around the run (``PatchDiff``), and its instructions, deflated, become a patch when they are
/// at most three quarters of the run's packed bytes. The patches go one after the other, as they are made, into
/// `assetpack-meta/patches/<new SHA-256>-<previous SHA-256>` (with immutable names, an object named by its own
/// SHA-256); each is applied once here and checked against the run's chunk hashes before it is kept.
///
/// A client whose installed copy (or seed) is that previous version fetches the patch instead of the chunks. Patches
/// are an optimisation: a previous version that cannot be read makes none, and the build goes on.
struct PatchMaker {
    /// The folder of a bundle holding the patches.
    static let folder = BundleManifest.reservedDirectory + "/patches"
    /// Chunks in one patch at most.
    static let maximumRun = 64
    /// Bytes of the previous version looked at on each side of where a run's bytes were.
    static let margin: UInt64 = 64 << 10

    /// The build folder.
    let root: String
    /// The previous bundle's folder.
    let previousRoot: String
    /// Whether the bundle's files are named by their SHA-256 (`BuildOptions.immutableNames`): the patch file is then
    /// an object too.
    let immutableNames: Bool

    /// The patches of the file `item` packed as `packed` (with chunks) from its previous entry `old`, written into
    /// the build folder; nil when there is nothing to patch from, or no patch is worth it.
    /// - Throws: only when the patch file cannot be written.
    func patches(for item: SourceItem, packed: PackedFile, old: BundleManifest.Entry,
                 follow: Bool) throws(AssetPackError) -> BundleManifest.Storage.Patches? {
        guard let pairs = packed.blocks, let hashes = packed.blockSHA256, packed.chunking != nil, hashes.count == pairs.count,
              let newSHA256 = packed.sha256, let baseSHA256 = old.sha256, baseSHA256 != newSHA256, let baseSize = old.size,
              let previous = try? PreviousVersion(entry: old, in: previousRoot),
              let source = try? FileDescriptor.open(item.sourcePath, follow ? [] : [.noFollow]) else { return nil }
        defer { source.close(); previous.close() }
        let newChunks = spans(pairs, size: packed.size, compressedSize: packed.compressedSize)
        guard newChunks.count == hashes.count else { return nil }
        var oldIndex: [String: [Int]] = [:]
        for (number, sha256) in previous.hashes.enumerated() { oldIndex[sha256, default: []].append(number) }
        var runs: [[UInt64]] = [], written: UInt64 = 0
        var file: (path: String, descriptor: FileDescriptor)?
        defer {
            if let file {  // an error left it half-written
                file.descriptor.close()
                try? FileSystem.removeTree(file.path)
            }
        }
        for run in Self.runs(missing: hashes.map { oldIndex[$0] == nil }) {
            let output = newChunks[run.lowerBound].uncompressed.lowerBound..<newChunks[run.upperBound - 1].uncompressed.upperBound
            let (window, aligned) = self.window(for: run, output: output, hashes: hashes, oldIndex: oldIndex, previous: previous,
                                                baseSize: baseSize)
            guard let new = try? read(output, of: source, path: item.sourcePath), let base = try? previous.bytes(window),
                  let patch = try? Self.deflatedPatch(new: new, old: base, oldOffset: window.lowerBound, aligned: aligned,
                                                      chunks: newChunks[run].map { $0.uncompressed.count }, hashes: hashes[run]),
                  patch.count * 4 <= Int(newChunks[run.upperBound - 1].compressed.upperBound - newChunks[run.lowerBound].compressed.lowerBound) * 3
            else { continue }
            if file == nil {
                // Under a name of its own first: another file with the same two versions writes the same patches.
                let path: String
                if immutableNames {
                    path = root + "/" + ObjectNames.temporary().string
                } else {
                    _ = try io(FileSystem.makeDirectories(root + "/" + Self.folder))
                    path = root + "/" + Self.folder + "/.partial-" + UUID().uuidString
                }
                file = (path, try io(FileSystem.createFile(path, permissions: 0o644)))
            }
            try io(file!.descriptor.writeAll(patch, path: file!.path))
            runs.append([UInt64(run.lowerBound), UInt64(run.count), written, UInt64(patch.count)])
            written += UInt64(patch.count)
        }
        guard let partial = file else { return nil }
        file = nil
        try io(partial.descriptor.closeAfterWriting(path: partial.path))
        let name: String
        if immutableNames {
            name = try ObjectNames.move(AssetPath(String(partial.path.dropFirst(root.count + 1))), in: root, sha256: nil).string
        } else {
            name = Self.folder + "/" + newSHA256 + "-" + baseSHA256
            try io(FileSystem.rename(partial.path, to: root + "/" + name))
        }
        return BundleManifest.Storage.Patches(file: name, baseSHA256: baseSHA256, baseSize: baseSize, runs: runs)
    }

    /// How far apart two offsets are.
    private func distance(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : b - a }

    /// The runs of consecutive chunks `missing` marks, at most ``maximumRun`` chunks each.
    static func runs(missing: [Bool]) -> [Range<Int>] {
        var runs: [Range<Int>] = [], start: Int?
        for (number, isMissing) in missing.enumerated() {
            if let first = start, !isMissing || number - first == maximumRun {
                runs.append(first..<number)
                start = nil
            }
            if isMissing && start == nil { start = number }
        }
        if let first = start { runs.append(first..<missing.count) }
        return runs
    }

    /// The stretch of the previous version where the bytes of `run` (bytes `output` of the new version) likely were:
    /// between the previous version's copies of the chunks around it (the same offsets when those are new too),
    /// widened by ``margin`` on both sides, at most 8 MiB; and where in it the run's first byte likely was.
    private func window(for run: Range<Int>, output: Range<UInt64>, hashes: [String], oldIndex: [String: [Int]],
                        previous: PreviousVersion, baseSize: UInt64) -> (Range<UInt64>, aligned: Int) {
        // Of a chunk the previous version holds several times (content that repeats), the copy nearest the run.
        func nearest(_ sha256: String) -> Int? {
            oldIndex[sha256]?.min { a, b in
                distance(previous.spans[a].uncompressed.lowerBound, output.lowerBound) < distance(previous.spans[b].uncompressed.lowerBound, output.lowerBound)
            }
        }
        let before = run.lowerBound > 0 ? nearest(hashes[run.lowerBound - 1]) : nil
        let after = run.upperBound < hashes.count ? nearest(hashes[run.upperBound]) : nil
        var start = run.lowerBound == 0 ? 0 : before.map { previous.spans[$0].uncompressed.upperBound } ?? output.lowerBound
        var end = run.upperBound == hashes.count ? baseSize : after.map { previous.spans[$0].uncompressed.lowerBound } ?? start + UInt64(output.count)
        start = min(start, baseSize)
        if end < start { end = start + UInt64(output.count) }
        let likely = start
        start = start - min(start, Self.margin)
        end = min(baseSize, end + Self.margin, start + (8 << 20))
        return (start..<end, Int(likely - start))
    }

    /// The deflated instructions making `new` from `old` (the previous version from `oldOffset` on), once `new`'s
    /// chunks (of lengths `chunks`) hash to `hashes` (the file did not change since it was packed) and the
    /// instructions, applied, made `new`.
    private static func deflatedPatch(new: [UInt8], old: [UInt8], oldOffset: UInt64, aligned: Int, chunks: [Int],
                                      hashes: ArraySlice<String>) throws -> [UInt8] {
        var start = 0
        for (length, expected) in zip(chunks, hashes) {
            var hash = SHA256()
            new[start..<(start + length)].withUnsafeBytes { hash.update($0) }
            guard hash.finalizeHex() == expected else { throw AssetPackError(.verification, "the file changed since it was packed") }
            start += length
        }
        let writer = new.withUnsafeBytes { new in
            old.withUnsafeBytes { old in PatchDiff.instructions(new: new, old: old, oldOffset: oldOffset, aligned: aligned) }
        }
        var made: [UInt8] = [], failure: AssetPackError?
        var reader = ChunkPatch.Reader(outputSize: UInt64(new.count), baseSize: oldOffset + UInt64(old.count))
        writer.bytes.withUnsafeBytes { instructions in
            do throws(AssetPackError) {
                try reader.read(instructions) { instruction in
                    switch instruction {
                    case .literal(let bytes): made += bytes
                    case .copy(let from, let length): made += old[Int(from - oldOffset)..<Int(from - oldOffset + length)]
                    }
                }
            } catch { failure = error }
        }
        if let failure { throw failure }
        guard reader.isComplete, made == new else { throw AssetPackError(.verification, "a chunk patch does not make its chunks") }
        return try BlockDeflater(level: 9).deflate(writer.bytes)
    }

    /// The spans of a chunk index read from `pairs`.
    private func spans(_ pairs: [[UInt64]], size: UInt64, compressedSize: UInt64) -> [DeflateBlockIndex.Span] {
        (try? DeflateBlockIndex(pairs: pairs).spans(uncompressedSize: size, compressedSize: compressedSize)) ?? []
    }

    /// The bytes `range` of `file`.
    private func read(_ range: Range<UInt64>, of file: FileDescriptor, path: String) throws(AssetPackError) -> [UInt8] {
        try PreviousVersion.read(range, of: file, path: path)
    }
}
