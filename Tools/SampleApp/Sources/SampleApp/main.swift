import AssetPack
import Foundation

// First launch of the sample app: expand the assets that AssetPackBuildPlugin packed into the resource
// Assets.zip onto writable storage, once. A second launch finds them in place and says "up to date".
//
// Usage: SampleApp [DESTINATION]   (default: assetpack-sample-assets in the temporary folder)
// An app would pick a folder in Application Support instead.

let destination = CommandLine.arguments.dropFirst().first
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("assetpack-sample-assets").path

do {
    guard let archive = Bundle.module.url(forResource: "Assets", withExtension: "zip") else {
        throw AssetPackError(.notFound, "no Assets.zip in the resource bundle", path: Bundle.module.bundlePath)
    }
    let installer = try AssetInstaller(source: try ZipAssetSource(url: archive), destination: destination)
    // Top-level code: `install()` is the async one (the blocking one is `installSynchronously()`).
    let result = try await installer.install()
    if result.upToDate {
        print("up to date: \(result.destination)")
    } else {
        print("installed \(result.files) files (\(result.bytes) bytes) into \(result.destination)")
        for (path, size) in try installedFiles(in: result.destination) {
            print("  \(path) (\(size) bytes)")
        }
    }
} catch {
    FileHandle.standardError.write(Data("SampleApp: \(error)\n".utf8))
    exit(1)
}

/// The files below `folder` (assetpack's own `.assetpack` record left out), sorted, with their sizes.
func installedFiles(in folder: String) throws -> [(String, Int)] {
    let manager = FileManager.default
    return try manager.subpathsOfDirectory(atPath: folder)
        .filter { !$0.hasPrefix(".assetpack") }
        .sorted()
        .compactMap { path in
            let attributes = try manager.attributesOfItem(atPath: folder + "/" + path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { return nil }
            return (path, (attributes[.size] as? Int) ?? 0)
        }
}
