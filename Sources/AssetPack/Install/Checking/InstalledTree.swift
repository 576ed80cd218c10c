import AssetPackSystem

/// A destination that ``AssetInstaller`` installs into, seen without its source: what is there
/// (``status(at:)``, ``InstallStatus``) and how to remove it (``uninstall(at:dryRun:)``). With a source, the
/// installer answers the same and more: ``AssetInstaller/status()``, ``AssetInstaller/verify()``.
public enum InstalledTree {}

/// A destination folder as its parent folder and its name, as ``AssetInstaller`` takes it apart: the path
/// made absolute, empty components and trailing slashes dropped; `/`, `.` and `..` (and an empty path)
/// name no destination. Beside it live its hidden staging and previous trees (``StagingNames``).
struct InstallLocation: Sendable {
    let parentPath: String
    let name: String

    /// The destination of `installer`.
    init(_ installer: AssetInstaller) {
        parentPath = installer.parentPath
        name = installer.name
    }

    /// The destination at `path` (relative to the current folder unless absolute).
    /// - Throws: ``AssetPackError/Code/invalidArgument`` for a path that names no folder to install into.
    init(path: String) throws(AssetPackError) {
        let absolute = path.hasPrefix("/") ? path : ((try? FileSystem.currentDirectory()) ?? "") + "/" + path
        var parts = absolute.split(separator: "/").map(String.init)
        guard !path.isEmpty, let last = parts.popLast(), last != ".", last != ".." else {
            throw AssetPackError(.invalidArgument, "names no destination folder (give the folder that expand --to named)",
                                 path: path.isEmpty ? "''" : path)
        }
        parentPath = "/" + parts.joined(separator: "/")
        name = last
    }

    /// The destination, absolute.
    var destination: String { AssetInstaller.path(of: name, in: parentPath) }

    /// `.<name>.assetpack-staging`, beside the destination.
    var stagingName: String { StagingNames.staging(for: name) }

    /// `.<name>.assetpack-previous`, beside the destination.
    var previousName: String { StagingNames.previous(for: name) }

    /// The parent folder, or nil when it does not exist.
    func openParent() throws(AssetPackError) -> Descriptor? {
        try io(Descriptor.existingDirectory(atPath: parentPath))
    }
}
