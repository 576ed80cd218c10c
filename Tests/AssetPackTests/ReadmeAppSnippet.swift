import AssetPack
import Foundation

/// Where the app keeps its expanded assets: `Application Support/Assets`.
func assetsFolder() throws -> URL {
    let support = try FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask,
                                              appropriateFor: nil, create: true)
    return support.appendingPathComponent("Assets", isDirectory: true)
}

/// Expands `assets.bundle` from the app's bundle into `destination` at first launch; at every later
/// launch it finds the assets in place and returns at once. `show` gets a line and a fraction to display
/// (on the main actor: the install itself runs on a thread of its own).
@MainActor
func installAssets(from bundle: Bundle = .main, into destination: URL,
                   show: (String, Double) -> Void = { _, _ in }) async throws -> ExpansionResult {
    let source = try BundleSource(bundle: bundle, subdirectory: "assets.bundle")
    var installer = try AssetInstaller(source: source, destination: destination)
    installer.log = { event in print("assets: \(event)") }  // what was resumed, reused or skipped
    for try await status in installer.statusUpdates() {
        switch status {
        case .planning: show("Checking the assets…", 0)
        case .writing(let counts): show("Installing the assets…", counts.fractionCompleted)
        case .done(let result): return result
        default: show("Finishing…", 1)  // flushing, switching (a local bundle downloads nothing)
        }
    }
    throw CancellationError()  // not reached: the updates end with .done or throw
}
