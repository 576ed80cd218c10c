import AssetPack
import AssetPackRemote
import Foundation

/// Installs the assets of the bundle at `bundleURL` into `destination`, or updates them: only a bundle whose
/// manifest is signed by the key in `publicKeyFile` is accepted (checked before anything is written), and
/// only what changed since the last call crosses the network. A call that finds the assets up to date makes
/// one small request.
func updateAssets(from bundleURL: URL, into destination: URL, publicKeyFile: String) async throws -> ExpansionResult {
    let key = try PublicKey(contentsOf: publicKeyFile)  // or PublicKey(keyFile: "assetpack ed25519 public key\n…")
    var options = FetchOptions()
    options.allowsPlainHTTP = bundleURL.host == "127.0.0.1"  // https:// everywhere else
    return try await RemoteBundle(bundleURL).install(into: destination.path, trust: .signed(by: [key]),
                                                     fetcher: RemoteFetcher(options: options))
}
