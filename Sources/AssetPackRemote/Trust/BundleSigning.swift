import AssetPack
import AssetPackZip
import Crypto
import Foundation

/// Signs a bundle folder that `assetpack build` wrote: the SHA-256 of its manifest file, with
/// ``ManifestSignature``, into ``ManifestSignature/path`` beside it (replacing an older signature). The manifest
/// lists every file with its SHA-256, so the signature vouches for every byte of the bundle. The manifest is
/// read a chunk at a time, however large.
public enum BundleSigning {
    /// Signs the manifest of the bundle folder `bundle` with `key`; returns the signature written.
    /// - Throws: `.notFound` when the folder has no `assetpack-meta/manifest.json`, `.manifest` when it is
    ///   not a valid manifest (a signature vouches only for what a client can read), `.io` when the signature
    ///   cannot be written.
    @discardableResult
    public static func sign(bundle: String, with key: SigningKey) throws(AssetPackError) -> ManifestSignature {
        let manifestPath = bundle + "/" + BundleManifest.path
        guard try BundleManifest.visitEntries(in: DirectorySource(root: bundle), { _ in }) != nil else {
            throw AssetPackError(.notFound, "no bundle manifest to sign (build the bundle folder first)", path: manifestPath)
        }
        let signature = try ManifestSignature.sign(manifestSHA256: try sha256(ofFile: manifestPath), with: key)
        let target = bundle + "/" + ManifestSignature.path
        do {
            try Data(signature.fileBytes).write(to: URL(fileURLWithPath: target), options: .atomic)
        } catch {
            throw AssetPackError(.io, "cannot write the signature: \(error.localizedDescription)", path: target)
        }
        return signature
    }

    /// The SHA-256 of the file at `path`, read a chunk at a time.
    private static func sha256(ofFile path: String) throws(AssetPackError) -> ContentHash {
        var hasher = Crypto.SHA256()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        do throws(ZipError) {
            let stream = try FileDescriptorStream(path: path)
            while true {
                let count = try chunk.withMutableRawBytes { (buffer) throws(ZipError) -> Int in try stream.read(into: buffer) }
                if count == 0 { return ContentHash(hasher.finalize()) }
                hasher.update(data: chunk[0..<count])
            }
        } catch {
            throw AssetPackError(error, path: path)
        }
    }
}
