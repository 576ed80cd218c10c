import AssetPack
import Foundation

/// Signs a bundle folder that `assetpack build` wrote: its manifest's exact bytes, with ``ManifestSignature``,
/// into ``ManifestSignature/path`` beside it (replacing an older signature). The manifest lists every file with
/// its SHA-256, so the signature vouches for every byte of the bundle.
public enum BundleSigning {
    /// Signs the manifest of the bundle folder `bundle` with `key`; returns the signature written.
    /// - Throws: `.notFound` when the folder has no `assetpack-meta/manifest.json`, `.manifest` when it is
    ///   not a valid manifest (a signature vouches only for what a client can read), `.io` when the signature
    ///   cannot be written.
    @discardableResult
    public static func sign(bundle: String, with key: SigningKey) throws(AssetPackError) -> ManifestSignature {
        let manifestPath = bundle + "/" + BundleManifest.path
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw AssetPackError(.notFound, "no bundle manifest to sign (build the bundle folder first)", path: manifestPath)
        }
        let bytes = [UInt8](data)
        let manifest = try BundleManifest.decode(bytes, origin: manifestPath)
        try VerifiedManifest.checkIdentity(of: manifest, origin: manifestPath)
        let signature = try ManifestSignature.sign(bytes, with: key)
        let target = bundle + "/" + ManifestSignature.path
        do {
            try Data(signature.fileBytes).write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw AssetPackError(.io, "cannot write the signature: \(error.localizedDescription)", path: target)
        }
        return signature
    }
}
