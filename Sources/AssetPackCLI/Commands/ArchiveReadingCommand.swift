import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip

/// A command that reads `<archive>` (``ArchiveArgument``) as what it is: a folder is a bundle, anything
/// else must be a zip, opened here. The command says what it does with each; `list` and `verify` are two.
protocol ArchiveReadingCommand: ParsableCommand {
    /// The `<archive>` argument.
    var archive: ArchiveArgument { get }

    /// The command's work on the bundle folder at `folder`.
    func run(bundleFolder folder: String) throws

    /// The command's work on the zip archive `zip`, opened from ``archive``.
    func run(zip: ZipArchive) throws
}

extension ArchiveReadingCommand {
    /// Opens ``archive`` and hands it to the command; library errors end the process (``Reporting/run(_:)``).
    /// A folder without a bundle manifest is a usage error (``notABundle(_:)``), as `check` of a folder is.
    func run() throws {
        try Reporting.run {
            if archive.path != AssetSources.standardInput, try io(FileSystem.status(archive.path))?.kind == .directory {
                guard try Self.holdsManifest(archive.path) else { throw Self.notABundle(archive.path) }
                try run(bundleFolder: archive.path)
            } else {
                try run(zip: try AssetSources.zipArchive(path: archive.path))
            }
        }
    }
}

extension ArchiveReadingCommand {
    /// True when `folder` has a bundle manifest file where ``BundleManifest/locate(in:)`` looks for one
    /// (`assetpack-meta/manifest.json`); its contents are not read.
    static func holdsManifest(_ folder: String) throws(AssetPackError) -> Bool {
        try io(FileSystem.status(folder + "/" + BundleManifest.path))?.kind == .file
    }

    /// The usage error for a folder without a bundle manifest: it exists, but this command reads bundles and zips.
    static func notABundle(_ folder: String) -> AssetPackError {
        let command = configuration.commandName ?? "this command"
        return AssetPackError(.invalidArgument, "is a folder without a bundle manifest (\(BundleManifest.path)); \(command) reads "
                              + "a bundle folder or a zip (assetpack expand takes any folder)", path: folder)
    }
}
