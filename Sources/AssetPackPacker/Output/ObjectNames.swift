import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// Content-addressed names for what a folder bundle stores (``BuildOptions/immutableNames``): every archive as
/// `assetpack-meta/objects/<SHA-256 of its bytes>.zip`, every plain file as `assetpack-meta/objects/<SHA-256>`.
/// A name then always stands for the same bytes: a new version only adds names and never changes the bytes
/// behind one, so a CDN may cache them for ever; only the pointer (identity, manifest, signature) changes.
enum ObjectNames {
    /// The folder of a bundle that holds its objects.
    static let folder = BundleManifest.reservedDirectory + "/objects"

    /// A new name in the objects folder for a file being written, until ``move(_:in:sha256:suffix:)``.
    static func temporary() -> AssetPath {
        // A fixed folder and a UUID: always a valid path.
        try! AssetPath(folder + "/.partial-" + UUID().uuidString)
    }

    /// Moves the file written at bundle path `written` of the build folder `root` to its content name (its SHA-256,
    /// hashed from the file when `sha256` is nil, then `suffix`); returns that name. Files with the same bytes
    /// become one object.
    static func move(_ written: AssetPath, in root: String, sha256: String?,
                     suffix: String = "") throws(AssetPackError) -> AssetPath {
        let from = root + "/" + written.string
        let digest = if let sha256 { sha256 } else { try hash(from) }
        // A fixed folder and hex digits: always a valid path.
        let name = try! AssetPath(folder + "/" + digest + suffix)
        try io(FileSystem.rename(from, to: root + "/" + name.string))
        return name
    }

    /// The SHA-256 of the file at `path`, read a MiB at a time.
    private static func hash(_ path: String) throws(AssetPackError) -> String {
        let file = try SourceFile(path, expectedSize: try io(FileSystem.status(path))?.size ?? 0, follow: false)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        do throws(ZipError) {
            while try file.read(into: buffer) > 0 {}
        } catch {
            throw file.explain(error)
        }
        try file.checkComplete()
        return file.sha256
    }
}
