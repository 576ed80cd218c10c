import Foundation

// The `URL` form of the installer's initializer (as ``AssetSources`` has for the sources).

extension AssetInstaller {
    /// An installer of `source` into the folder at the file URL `destination` (created with its parents
    /// when missing); see ``init(source:destination:options:)-(_,String,_)``.
    /// - Throws: ``AssetPackError/Code/invalidArgument`` when `destination` is not a file URL or cannot
    ///   be a destination.
    public init(source: any AssetSource, destination: URL, options: ExpansionOptions = ExpansionOptions()) throws(AssetPackError) {
        try self.init(source: source, destination: try FileURL.path(of: destination), options: options)
    }

    /// ``destination`` as a file URL.
    public var destinationURL: URL { URL(fileURLWithPath: destination, isDirectory: true) }
}
