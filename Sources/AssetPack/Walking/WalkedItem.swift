/// One path found by ``AssetWalker``: a file or a directory of the tree.
public struct WalkedItem: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// What a walked path is.
    public enum Kind: String, Hashable, Sendable {
        /// Opens as a file.
        case file
        /// Has children, or has none and does not open (an empty directory).
        case directory
    }

    /// The path relative to the source's root.
    public var path: AssetPath
    /// File or directory.
    public var kind: Kind

    /// An item.
    public init(path: AssetPath, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// Orders by path (``AssetPath``'s byte order).
    public static func < (lhs: WalkedItem, rhs: WalkedItem) -> Bool { lhs.path < rhs.path }

    /// `path` for a file, `path/` for a directory.
    public var description: String { kind == .directory ? "\(path)/" : path.string }
}
