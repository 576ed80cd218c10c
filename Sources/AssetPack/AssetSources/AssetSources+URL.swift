import AssetPackZip
import Foundation

// `URL` forms of the initializers that take a path: each takes a file URL (`isFileURL`) and reads it as the
// path it names.

extension DirectorySource {
    /// A source over the folder at the file URL `root`; see ``init(root:)-(String)``.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `root` is not a file URL.
    public init(root: URL) throws(AssetPackError) {
        self.init(root: try FileURL.path(of: root))
    }
}

extension BundleSource {
    /// A source over the resource folder at the file URL `url`, e.g. the folder
    /// `Bundle.main.url(forResource: "assets", withExtension: "bundle")` finds; like a ``DirectorySource``
    /// over it.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `url` is not a file URL.
    public init(url: URL) throws(AssetPackError) {
        directory = DirectorySource(root: try FileURL.path(of: url))
    }
}

extension ZipAssetSource {
    /// Opens the archive at the file URL `url` and makes a source over its folder `root`; see
    /// ``init(path:root:limits:)``.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `url` is not a file URL; else as
    ///   ``init(path:root:limits:)``.
    public init(url: URL, root: String = "", limits: ZipLimits = .default) throws(AssetPackError) {
        try self.init(path: try FileURL.path(of: url), root: root, limits: limits)
    }
}

extension AssetSources {
    /// The asset tree at the file URL `url`; see ``open(path:root:)``.
    public static func open(url: URL, root: String?) throws(AssetPackError) -> any AssetSource {
        try open(path: try FileURL.path(of: url), root: root)
    }
}

/// The path a file URL names.
enum FileURL {
    /// The file-system path of `url`.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `url` is not a file URL.
    static func path(of url: URL) throws(AssetPackError) -> String {
        guard url.isFileURL else {
            throw AssetPackError(.invalidArgument, "is not a file URL; give the URL of a file or folder", path: url.absoluteString)
        }
        return url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } } ?? url.path
    }
}
