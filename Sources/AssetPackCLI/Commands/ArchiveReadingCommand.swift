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
    func run() throws {
        try Reporting.run {
            if try io(FileSystem.status(archive.path))?.kind == .directory {
                try run(bundleFolder: archive.path)
            } else {
                try run(zip: try ZipArchive(path: archive.path))
            }
        }
    }
}
