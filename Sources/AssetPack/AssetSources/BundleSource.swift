import AssetPackZip
import Foundation

/// An asset tree that is a resource folder of a Foundation `Bundle` (the app's main bundle, a resource
/// bundle, or on Linux any plain folder opened with `Bundle(path:)`). It reads the folder through a
/// ``DirectorySource``, so the same rules hold: names as the file system gives them, links never followed.
public struct BundleSource: AssetSource, SizedAssetSource, RandomAccessAssetSource {
    /// The folder the tree starts at: the bundle's resource folder, plus the subdirectory.
    public let directory: DirectorySource

    /// A source over `subdirectory` (e.g. `"Assets"`) of `bundle`'s resource folder, or the whole
    /// resource folder when `subdirectory` is nil.
    /// - Throws: `.notFound` when the bundle has no resource folder; `.unsafePath` when `subdirectory`
    ///   is not a safe relative path.
    public init(bundle: Bundle, subdirectory: String? = nil) throws(AssetPackError) {
        guard let resources = bundle.resourcePath else {
            throw AssetPackError(.notFound, "bundle has no resource folder", path: bundle.bundlePath)
        }
        let inner = try AssetPath(subdirectory ?? "")
        directory = DirectorySource(root: inner.isRoot ? resources : resources + "/" + inner.string)
    }

    /// The folder's path.
    public var name: String { directory.name }

    /// See ``DirectorySource/list(_:)``.
    public func list(_ path: AssetPath) throws(AssetPackError) -> [String] { try directory.list(path) }

    /// See ``DirectorySource/open(_:)``.
    public func open(_ path: AssetPath) throws(AssetPackError) -> any ByteStream { try directory.open(path) }

    /// See ``DirectorySource/size(of:)``.
    public func size(of path: AssetPath) throws(AssetPackError) -> UInt64? { try directory.size(of: path) }

    /// See ``DirectorySource/randomAccess(_:)``.
    public func randomAccess(_ path: AssetPath) throws(AssetPackError) -> (any RandomAccessSource)? {
        try directory.randomAccess(path)
    }

    /// The folder's regular files: ``AssetStorage/folder(root:)``.
    public var storage: AssetStorage { directory.storage }
}
