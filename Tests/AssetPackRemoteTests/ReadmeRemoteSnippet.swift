import AssetPack
import AssetPackRemote
import Foundation

/// Installs or updates the assets of the bundle at `bundleURL` in `destination` once its manifest is checked against
/// the key in `publicKeyFile`, fetching only what changed (one small request when nothing did); `show` gets progress.
func updateAssets(from bundleURL: URL, into destination: URL, publicKeyFile: String,
                  show: (Double) -> Void = { _ in }) async throws -> ExpansionResult {
    let key = try PublicKey(contentsOf: publicKeyFile)  // or PublicKey(keyFile: "assetpack ed25519 public key\n…")
    var options = FetchOptions()
    options.allowsPlainHTTP = bundleURL.host == "127.0.0.1"  // https:// everywhere else
    let bundle = RemoteBundle(bundleURL), fetcher = RemoteFetcher(options: options)
    for try await status in bundle.statusUpdates(into: destination.path, trust: .signed(by: [key]), fetcher: fetcher) {
        if case .downloading(let done, let total) = status { show(Double(done) / Double(max(total, 1))) }
        if case .done(let result) = status { return result }
    }
    throw CancellationError()  // not reached: the updates end with .done or throw
}
