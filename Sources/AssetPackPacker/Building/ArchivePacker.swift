import AssetPack
import AssetPackZip

/// Packs a source folder into ONE zip (`assetpack build --archive OUT.zip`): every folder becomes a
/// directory entry (so empty ones survive), every file an entry at its path, and the manifest is added
/// last as `.assetpack/manifest.json` and `.assetpack/identity`.
///
/// The archive is itself the container, so nothing is nested: files at or under the threshold are stored
/// byte for byte (as the folder form copies them), larger ones are deflated — or stored when the
/// ``CompressibilityProbe`` says deflate would not save enough — and the manifest records every file as
/// `plain` with `file` = its entry name. Unlike the folder form, a large file deflated here is not
/// rewritten when the whole file saved less than ``PackingRules/minimumSaving``: the writer cannot take an
/// entry back, and such an entry costs at most that little. There is no incremental reuse in this form.
///
/// Deterministic like ``Packer``, and written to a temporary sibling file renamed into place.
public struct ArchivePacker: Sendable {
    /// The options every build uses.
    public var options: BuildOptions

    /// An archive packer with `options`.
    public init(options: BuildOptions = BuildOptions()) {
        self.options = options
    }

    /// Packs `source` into the zip `output`, replacing a previous bundle archive there.
    /// - Throws: ``AssetPackError`` as ``Packer/build(source:output:progress:)`` does.
    public func build(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        let started = ContinuousClock.now
        try options.rules.validate()
        try SourceScanner.checkRoot(source)
        let location = try OutputLocation(output, form: .archive, source: source)
        let items = try SourceScanner(followSymlinks: options.followSymlinks, excluded: [location.resolved]).scan(source)
        let staged = try location.stageArchive()
        var summary = BuildSummary(source: source, output: output, form: "archive")
        do throws(AssetPackError) {
            let writer: ZipWriter
            do { writer = try ZipWriter(path: staged, options: .deterministic(level: options.rules.level)) } catch { throw AssetPackError(error) }
            var counter = ProgressCounter(progress, items: items)
            var entries: [BundleManifest.Entry] = []
            for item in items {
                entries.append(try add(item, to: writer, summary: &summary))
                counter.finished(item)
            }
            let manifest = ManifestWriter.manifest(entries, rules: options.rules)
            try ManifestWriter.add(manifest, to: writer)
            do { try writer.finish(sync: false) } catch { throw AssetPackError(error) }
            summary.identity = manifest.identity
            summary.bytesOut = try FileSystem.info(staged)?.size ?? 0
            try location.commit(staged)
        } catch {
            location.discard(staged)
            throw error
        }
        summary.seconds = started.duration(to: .now).seconds
        return summary
    }

    /// Adds one folder or file; returns its manifest entry.
    private func add(_ item: SourceItem, to writer: ZipWriter, summary: inout BuildSummary) throws(AssetPackError) -> BundleManifest.Entry {
        let name = item.path.string
        guard item.kind == .file else {
            do { try writer.addDirectory(name) } catch { throw AssetPackError(error) }
            summary.directories += 1
            return .directory(name)
        }
        let large = options.rules.packs(item.path, size: item.size)
        let packer = EntryPacker(rules: options.rules, followSymlinks: options.followSymlinks)
        let method = large ? try packer.chooseMethod(for: item) : .stored
        let source = try SourceFile(item.sourcePath, expectedSize: item.size, follow: options.followSymlinks)
        let written: WrittenEntry
        do {
            written = try writer.addFile(name, from: source, size: item.size, method: method,
                                         permissions: item.isExecutable ? 0o755 : 0o644)
        } catch {
            throw source.explain(error)
        }
        try source.checkComplete()
        summary.files += 1
        summary.bytesIn += item.size
        if large {
            summary.packed += 1
            if method == .stored { summary.stored += 1 }
        }
        return ManifestWriter.fileEntry(item, crc32: written.crc32, storage: .plain(name))
    }
}
