import AssetPack
import AssetPackSystem
import AssetPackZip

/// Packs a source folder into a bundle folder: the output mirrors the source, files larger than the
/// threshold become `name.zip` archives holding one entry each, small files (64 KiB or less by default,
/// ``PackingRules/packMemberLimit``) are gathered into pack archives of about 1 MiB in
/// `assetpack-meta/packs/` (see `PackGrouping`), the others are copied byte for byte, every folder (empty
/// ones too) is created, and `assetpack-meta/manifest.json` describes it all.
///
/// ```swift
/// let summary = try Packer().build(source: "assets", output: "assets.bundle")
/// print(summary.text)
/// ```
///
/// The result is deterministic: the same tree gives byte-identical bundles (sorted walk, fixed zip timestamps
/// from `SOURCE_DATE_EPOCH` or 1980-01-01, permissions normalized to 0644/0755), whatever the number of
/// ``BuildOptions/jobs``, on machines with the same deflater (libdeflate where it loads, else zlib;
/// `ASSETPACK_DEFLATER=zlib` chooses zlib). The written files keep their real modification times, so copy steps that compare
/// times do not skip a changed bundle.
///
/// The bundle is written to a temporary sibling and renamed into place, so an interrupted build never leaves
/// a complete-looking bundle; an existing bundle at the output lends its unchanged archives. Nothing is
/// fsynced: a build can always be run again, and the expander checks every CRC-32. The tree streams through
/// in path order, a batch at a time, so a build holds a few batches, not the tree.
public struct Packer: Sendable {
    /// The options every build uses.
    public var options: BuildOptions

    /// A packer with `options`.
    public init(options: BuildOptions = BuildOptions()) {
        self.options = options
    }

    /// Packs `source` into the bundle folder `output`, replacing a previous bundle there.
    /// - Throws: `AssetPackError` naming the file: the source is missing or not a folder, the output is
    ///   inside the source (or the reverse) or is in the way, a symlink or special file, an unreadable
    ///   file, a bookkeeping folder's name (`assetpack-meta`, `.assetpack`) at the top of the source, a failed write.
    public func build(source: String, output: String, progress: ProgressHandler? = nil) throws(AssetPackError) -> BuildSummary {
        try run(source, into: output, form: .folder,
                progress: progress) { (location, staged, scanner, counter) throws(AssetPackError) in
            let cache = location.exists
                ? IncrementalCache.load(bundle: output, rules: options.rules, followSymlinks: options.followSymlinks)
                : nil
            return try PreviousEntries.reading(cache?.root) { (previous) throws(AssetPackError) -> BuildSummary in
                var build = try FolderBuild(root: staged, options: options, cache: cache, previous: previous,
                                            counter: counter, summary: BuildSummary(source: source, output: output,
                                                                                    form: "folder"))
                do throws(AssetPackError) {
                    try scanner.scan(source) { (item, names) throws(AssetPackError) in try build.add(item, names: names) }
                    return try build.finish()
                } catch {
                    build.abandon()
                    throw error
                }
            }
        }
    }

    /// The steps every build shares: checks the rules and the source folder, works out where the output goes
    /// (never inside the source), stages it, lets `fill` write the staged output from the walk of the source
    /// (output left out), and renames it into place, or removes it when anything failed; times the whole.
    func run(_ source: String, into output: String, form: OutputLocation.Form, progress: ProgressHandler?,
             fill: (_ location: OutputLocation, _ staged: String, _ scanner: SourceScanner,
                    _ counter: ProgressCounter) throws(AssetPackError) -> BuildSummary)
        throws(AssetPackError) -> BuildSummary {
        let started = ContinuousClock.now
        try options.rules.validate()
        try SourceScanner.checkRoot(source)
        let location = try OutputLocation(output, form: form, source: source)
        let scanner = SourceScanner(followSymlinks: options.followSymlinks, excluded: [location.resolved],
                                    exclusions: options.exclusions)
        let staged = try location.stage()
        var summary: BuildSummary
        do throws(AssetPackError) {
            summary = try fill(location, staged, scanner, ProgressCounter(progress))
            try location.commit(staged)
        } catch {
            location.discard(staged)
            throw error
        }
        summary.seconds = started.duration(to: .now).seconds
        return summary
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
