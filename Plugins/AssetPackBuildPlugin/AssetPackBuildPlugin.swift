import Foundation
import PackagePlugin

/// Packs a target's `Assets` folder into ONE resource, `Assets.zip`, during `swift build`.
///
/// The convention: the folder named `Assets` directly inside the target's folder (`Sources/App/Assets`),
/// which the target excludes (`exclude: ["Assets"]`) so that SwiftPM neither compiles nor copies it. The
/// plugin runs `assetpack build Assets --archive Assets.zip` (the package's own executable, built for the
/// host) as a build command whose inputs are every file of the folder, so it runs again when one changes
/// and new or removed files re-plan it. The archive, manifest included, lands in the target's resource
/// bundle: at launch, `Bundle.module.url(forResource: "Assets", withExtension: "zip")` gives it to
/// `ZipAssetSource`, and `AssetInstaller` expands it.
///
/// Why one archive and not the bundle folder: the output of a build-tool plugin is handled like a
/// `.process` resource, and one file with a name and contents no build system rewrites survives every
/// one of them (SwiftPM on Linux and macOS, Xcode), where a folder's layout and its `assetpack-meta/`
/// manifest depend on how each treats folders. llbuild also tracks one output file exactly. See the
/// README's "Build-time packing with SwiftPM" section.
@main
struct AssetPackBuildPlugin: BuildToolPlugin {
    /// The folder packed, inside the target's folder.
    static let folderName = "Assets"

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let directory = Self.directory(of: target) else { return [] }
        let assets = directory.appending(path: Self.folderName, directoryHint: .isDirectory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: assets.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            Diagnostics.warning("AssetPackBuildPlugin: target \(target.name) has no folder \(Self.folderName) "
                                + "(\(assets.path)); nothing to pack")
            return []
        }
        if let module = target as? SourceModuleTarget,
           module.sourceFiles.contains(where: { $0.url.path.hasPrefix(assets.path + "/") }) {
            Diagnostics.warning("AssetPackBuildPlugin: add exclude: [\"\(Self.folderName)\"] to target \(target.name), "
                                + "so its assets are only packed, not also taken as the target's files")
        }
        let archive = context.pluginWorkDirectoryURL.appending(path: Self.folderName + ".zip")
        return [.buildCommand(
            displayName: "Packing \(Self.folderName) of \(target.name) into \(Self.folderName).zip",
            executable: try context.tool(named: "AssetPackCLI").url,
            arguments: ["build", assets.path, "--archive", archive.path, "--quiet"],
            inputFiles: try Self.files(below: assets),
            outputFiles: [archive]
        )]
    }

    /// The folder of a source target (Swift or C-family); nil for other kinds.
    static func directory(of target: Target) -> URL? {
        switch target {
        case let swift as SwiftSourceModuleTarget: swift.directoryURL
        case let clang as ClangSourceModuleTarget: clang.directoryURL
        default: nil
        }
    }

    /// Every file below `folder`, hidden ones included, in a fixed order.
    static func files(below folder: URL) throws -> [URL] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey]) else {
            throw PackError("cannot read the folder \(folder.path)")
        }
        var files: [URL] = []
        for case let url as URL in walk where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true {
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }
}

/// A failure the plugin reports as one sentence.
struct PackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
