import AssetPack

/// What the NDK cannot tell: which paths of an APK's asset tree are folders, and what each folder holds
/// (`AAssetDir_getNextFileName` returns regular files only). ``NDKAssetSource`` lists through one of
/// these and reads through the NDK. Paths are relative to the source's root; names are compared by
/// their UTF-8 bytes.
protocol StoredTree: Sendable {
    /// Where the tree was read, for messages: "the bundle manifest", "the central directory of …".
    var origin: String { get }
    /// What is at `path`, or nil when the tree has nothing there.
    func node(_ path: AssetPath) -> StoredNode?
    /// The names directly inside the folder at `path`, never empty ones; `[]` for a file or a missing path.
    func names(in path: AssetPath) -> [String]
}

/// One path of a ``StoredTree``.
enum StoredNode: Sendable, Equatable {
    /// A folder, stated or implied by a longer name.
    case directory
    /// A regular file, with the size and CRC-32 its tree records when it records them.
    case file(size: UInt64?, crc32: UInt32?)
    /// An entry that is not a regular file (a symbolic link, a device): opening it fails with this code
    /// and reason.
    case refused(AssetPackError.Code, String)
}
