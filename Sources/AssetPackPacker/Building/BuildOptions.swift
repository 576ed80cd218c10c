import AssetPack
import Foundation

/// What both forms of build (``Packer/build(source:output:progress:)`` for a bundle folder, ``Packer/buildArchive(source:output:progress:)`` for one zip) are told.
public struct BuildOptions: Sendable {
    /// Threshold, deflate level, and the rules for storing instead of deflating.
    public var rules: PackingRules
    /// Follow symbolic links in the source instead of refusing them (see ``SourceScanner``).
    public var followSymlinks: Bool
    /// Threads compressing at once (at least 1). The output is the same bytes whatever the number.
    public var jobs: Int
    /// The files and folders of the source left out (by default ``ExcludePatterns/defaults``).
    public var exclusions: ExcludePatterns
    /// For a bundle served over HTTP (`assetpack build --immutable-names`): every archive and plain file of a
    /// folder bundle is named by the SHA-256 of its bytes in `assetpack-meta/objects/` (the only folder it then
    /// holds beside the pointer), so a name never stands for other bytes and caches may keep it for ever (see
    /// `ServerDelivery`). Off by default: plain files stay at their paths, archives are numbered, as a bundle
    /// shipped inside an app wants them.
    public var immutableNames = false
    /// For a folder bundle built over the previous one at its output: whether a changed file (cut into chunks) also
    /// gets patches from its previous version (`BundleManifest.Storage.Patches`, in `assetpack-meta/patches/`), which an
    /// update from that version fetches instead of the chunks. On by default (`assetpack build --no-patches` says no);
    /// they add to the bundle about what changed.
    public var writesPatches = true

    /// Options with the default rules (1 MiB threshold, level 6) that refuse symlinks, one job per core,
    /// and leave out the usual clutter (``ExcludePatterns/defaultPatterns``).
    public init(rules: PackingRules = PackingRules(), followSymlinks: Bool = false, jobs: Int = BuildOptions.defaultJobs,
                exclusions: ExcludePatterns = .defaults) {
        self.rules = rules
        self.followSymlinks = followSymlinks
        self.jobs = max(1, jobs)
        self.exclusions = exclusions
    }

    /// The number of active processor cores.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }
}

/// Called after each file with how far the build has got, always from the thread that called `build`,
/// in walking order (files are packed in parallel, but recorded in order).
public typealias ProgressHandler = @Sendable (BuildProgress) -> Void

/// Counts files done for ``ProgressHandler`` calls.
struct ProgressCounter {
    let handler: ProgressHandler?
    private var fileCount = 0
    private var totalBytes: UInt64 = 0
    private var filesDone = 0
    private var bytesDone: UInt64 = 0

    /// A counter for `handler`.
    init(_ handler: ProgressHandler?) { self.handler = handler }

    /// Adds `item`, just walked, to the totals: a build streams the tree, so the totals grow as it goes.
    mutating func found(_ item: SourceItem) {
        guard item.kind == .file else { return }
        fileCount += 1
        totalBytes += item.size
    }

    /// Records that the file or folder of `entry` is done and tells the handler.
    mutating func finished(_ entry: BundleManifest.Entry) {
        guard entry.kind == .file else { return }
        filesDone += 1
        bytesDone += entry.size ?? 0
        handler?(BuildProgress(filesDone: filesDone, fileCount: fileCount, bytesDone: bytesDone,
                               totalBytes: totalBytes, path: entry.path))
    }
}
