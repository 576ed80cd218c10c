import AssetPackZip

/// Where assets come from, seen through the only two calls Android's `AssetManager` offers:
/// `list(path)` and `open(path)`. There is no "is this a directory?": a path is a directory when `list`
/// returns children, or when it returns none and `open` fails as not-found (an empty directory).
/// ``AssetWalker`` applies exactly that rule.
///
/// Sources may offer more through the optional capability protocols below (``SizedAssetSource``,
/// ``RandomAccessAssetSource``) and by saying where their files really are (``storage``, an
/// ``AssetStorage``); the expander uses both when present, so a source written outside this package gets
/// the same fast paths as the built-in ones. Implementations must be safe to use from several threads at once.
public protocol AssetSource: Sendable {
    /// A name for messages (a path, an archive and prefix).
    var name: String { get }

    /// The names of the children of the directory at `path` (the root is ``AssetPath/root``), in any order.
    /// Returns `[]` for a file, an empty directory, and a path that does not exist (as Android does).
    func list(_ path: AssetPath) throws(AssetPackError) -> [String]

    /// Opens the file at `path` for reading front to back.
    /// - Throws: ``AssetPackError`` with code `.notFound` for a directory or a missing path; other codes
    ///   for real failures.
    func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream

    /// Where this source's files really are, when the expander may read them more directly than through
    /// ``open(_:)``. Optional: the default is ``AssetStorage/opaque``.
    var storage: AssetStorage { get }
}

extension AssetSource {
    /// Nothing beyond `list` and `open`: ``AssetStorage/opaque``.
    public var storage: AssetStorage { .opaque }
}

/// Where the files of an ``AssetSource`` really are. The expander asks once, before planning, and then
/// reads every file the most direct way this allows; whatever the case, `list` and `open` must show the
/// same tree.
public enum AssetStorage: Sendable {
    /// Only `list` and `open` (and the capability protocols the source adopts).
    case opaque
    /// The files are the regular files below the folder `root` on disk, at the same relative paths. The
    /// expander reads them from descriptors of their folders (never following a link), cloning them where
    /// the file system shares blocks.
    case folder(root: String)
    /// The files are the file entries of `archive` below its folder `root` (without `/` at either end; ""
    /// for the whole archive). The expander plans them from the central directory, checking every entry,
    /// and reads each entry with its own buffers; the up-to-date check fingerprints the central directory.
    case archive(ZipArchive, root: String)
    /// The logical view of a packed bundle: the bundle `base` as stored, described by `manifest` (read and
    /// checked with ``BundleManifest/read(from:)``). The expander plans from the manifest and reads `base`.
    case packedBundle(base: any AssetSource, manifest: BundleManifest)
    /// A packed bundle whose stored files are fetched on demand (``DeliveredBundleSource``): planned from its
    /// manifest, each file's bytes delivered by its ``BundleDelivery`` and checked by the installer.
    case delivered(DeliveredBundleSource)
}

/// A source that knows a file's size without reading it.
public protocol SizedAssetSource: AssetSource {
    /// The size in bytes of the file at `path`, or nil when it is not a file.
    func size(of path: AssetPath) throws(AssetPackError) -> UInt64?
}

/// A source that can hand out a file's bytes for random access (a real file; a stored entry of an outer
/// archive as a byte range of that archive). A zip inside the source is then read with `ZipArchive`
/// instead of forward-only.
public protocol RandomAccessAssetSource: AssetSource {
    /// Random access to the file at `path`, or nil when this file cannot be read that way
    /// (e.g. a deflated entry of an outer archive). ``ZipAssetSource`` verifies a stored entry against its
    /// CRC-32 before it hands out the range, since a nested archive read in place trusts bytes its own
    /// entries' checksums do not cover.
    func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)?
}
