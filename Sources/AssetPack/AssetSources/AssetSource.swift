import AssetPackZip

/// Where assets come from, seen through the only two calls Android's `AssetManager` offers:
/// `list(path)` and `open(path)`. There is no "is this a directory?": a path is a directory when `list`
/// returns children, or when it returns none and `open` fails as not-found (an empty directory).
/// ``AssetWalker`` applies exactly that rule.
///
/// Sources may offer more through the optional capability protocols below (``SizedAssetSource``,
/// ``RandomAccessAssetSource``, ``FileBackedAssetSource``); the expander uses them when present.
/// Implementations must be safe to use from several threads at once.
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
}

/// A source that knows a file's size without reading it.
public protocol SizedAssetSource: AssetSource {
    /// The size in bytes of the file at `path`, or nil when it is not a file.
    func size(of path: AssetPath) throws(AssetPackError) -> UInt64?
}

/// A source that can hand out a file's bytes for random access (a real file; a stored entry of an outer
/// archive as a byte range of that archive). A zip inside the source is then read with ``ZipArchive``
/// instead of forward-only.
public protocol RandomAccessAssetSource: AssetSource {
    /// Random access to the file at `path`, or nil when this file cannot be read that way
    /// (e.g. a deflated entry of an outer archive).
    func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)?
}

/// A source whose files are real files on disk, so the expander can copy them with `copy_file_range`.
public protocol FileBackedAssetSource: AssetSource {
    /// The file-system path of the file at `path`, or nil.
    func filePath(_ path: AssetPath) -> String?
}
