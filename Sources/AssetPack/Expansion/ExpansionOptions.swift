import AssetPackZip
import Foundation

/// How a bundle or asset tree is expanded.
public struct ExpansionOptions: Sendable, Hashable {
    /// In a tree without a manifest, copy `.zip` files as they are instead of unzipping each into its
    /// parent folder. Ignored for a bundle with a manifest, which says exactly which archives are packed.
    public var keepZips: Bool
    /// Create symbolic-link entries of archives. Off by default: a symlink entry is then refused with
    /// ``AssetPackError/Code/symlink``. When on, a link is created only if it resolves, on the real file
    /// system, to a place inside the destination.
    public var allowSymlinks: Bool
    /// How many files are written at once (at least 1).
    public var jobs: Int
    /// Limits applied to every archive read (entries, total size, compression ratio).
    public var limits: ZipLimits

    /// Options with the defaults: unzip `.zip` files of manifest-less trees, refuse symlinks, one job per core.
    public init(keepZips: Bool = false, allowSymlinks: Bool = false, jobs: Int = ExpansionOptions.defaultJobs,
                limits: ZipLimits = .default) {
        self.keepZips = keepZips
        self.allowSymlinks = allowSymlinks
        self.jobs = max(1, jobs)
        self.limits = limits
    }

    /// The number of active processor cores.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// The part of the options that changes what lands on disk, recorded with the identity.
    var recordTag: String {
        "zips=\(keepZips ? "keep" : "unpack") symlinks=\(allowSymlinks ? "allow" : "refuse")"
    }
}
