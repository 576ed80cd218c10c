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
    /// Limits applied to every archive read (entries, total size, compression ratio), each archive on its own.
    public var limits: ZipLimits
    /// The most bytes the whole expansion may write: every file of the tree and of every archive unzipped
    /// into it, added up from the plan before anything is written. Exceeding it is
    /// ``AssetPackError/Code/limitExceeded`` naming the file that crossed it. Default 64 GiB.
    public var maxTotalBytes: UInt64
    /// Whether the finished tree is flushed to the device before it is recorded complete, so that it also
    /// survives a power loss (``Durability/flushOnCommit``, the default), or write-back is left to the
    /// kernel (``Durability/none``: still safe against the process being killed). See ``Durability``.
    public var durability: Durability
    /// Expand a tree that holds no file (only folders, or nothing) instead of refusing it. Off by default:
    /// an empty tree is almost always a mistake (a misspelt root, an empty download).
    public var allowsEmpty: Bool
    /// Also check every file of a local bundle against the SHA-256 its manifest records (when it has one),
    /// computed as it is written. Off by default: a bundle shipped inside the app is as trusted as its code,
    /// the CRC-32 catches damage, and SHA-256 costs about as much CPU as inflating. Files of a delivered
    /// bundle (``DeliveredBundleSource``) are always checked against their SHA-256.
    public var checksSHA256 = false
    /// On an upgrade or a repair, remove what the installed tree holds that assetpack did not write (files and
    /// folders the app or the user put into the destination), listing it in ``ExpansionResult/unknownDeleted``.
    /// Off by default: such entries are carried into the new tree and listed in ``ExpansionResult/unknownKept``.
    public var removesUnknownEntries = false
    /// Apply an upgrade to the installed tree itself instead of building the new version beside it and switching
    /// it in: only the files that changed are written (into staging, then moved in), the unchanged ones stay where
    /// they are, and what the new version drops is removed. It writes a fraction of what a switch writes for a
    /// small upgrade of many files (a switch gives every file of the new tree a new link), at a price: while it
    /// runs (after the download and every check: a read of both records and a rename per change) the destination
    /// is a mix of both versions. It is marked not installed first, and a killed or failed upgrade is finished by
    /// the next call, whatever its options, before anything else (or by ``AssetInstaller/discardPartialInstall()``).
    /// Off by default; a first install, a repair of a tree without a record, or an install over nothing always
    /// builds and switches in. Not part of the tree's stamp.
    public var upgradesInPlace = false
    /// Where an archive stored in the source that can only be read front to back is copied, to be read at
    /// random (an unlinked file): an install's staging tree, on the destination's file system and within its
    /// free-space check (set by ``AssetInstaller``); nil for the system's temporary folder.
    package var spoolFolder: String?
    /// Tests only: see ``InstallTestSeam``.
    package var testSeam = InstallTestSeam()

    /// The default of ``maxTotalBytes``: 64 GiB.
    public static let defaultMaxTotalBytes: UInt64 = 64 << 30

    /// Options with the defaults: unzip `.zip` files of manifest-less trees, refuse symlinks, one job per core,
    /// flush before the tree is recorded complete, refuse an empty tree.
    public init(keepZips: Bool = false, allowSymlinks: Bool = false, jobs: Int = ExpansionOptions.defaultJobs,
                limits: ZipLimits = .default, maxTotalBytes: UInt64 = ExpansionOptions.defaultMaxTotalBytes,
                durability: Durability = .flushOnCommit, allowsEmpty: Bool = false) {
        self.keepZips = keepZips
        self.allowSymlinks = allowSymlinks
        self.jobs = max(1, jobs)
        self.limits = limits
        self.maxTotalBytes = maxTotalBytes
        self.durability = durability
        self.allowsEmpty = allowsEmpty
    }

    /// The number of active processor cores.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// The part of the options that changes what lands on disk, recorded with the identity.
    var recordTag: String {
        "zips=\(keepZips ? "keep" : "unpack") symlinks=\(allowSymlinks ? "allow" : "refuse")"
    }
}
