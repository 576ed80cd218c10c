import AssetPack
import AssetPackZip

/// The packing policy: which files go into a zip of their own, at which deflate level, and when a packed
/// file is stored instead of deflated because deflate would not save enough.
///
/// Files larger than ``threshold`` are packed; files at or under it are copied byte for byte. The default
/// threshold is 1 MiB (1,048,576 bytes), old Android's `UNCOMPRESS_DATA_MAX`: the largest compressed asset
/// its `AssetManager` could open, which is why large assets were shipped pre-zipped in the first place.
/// A zip archive (a name ending in `.zip` after something, `AssetPath/isZipArchiveName`) is never packed:
/// a zip inside a zip gains nothing, and the asset must come back as the same zip.
public struct PackingRules: Sendable, Hashable {
    /// The default threshold: 1,048,576 bytes (1 MiB).
    public static let defaultThreshold: UInt64 = 1 << 20

    /// Files larger than this many bytes are packed; 0 packs every file, empty ones included.
    public var threshold: UInt64
    /// The deflate level 0–9 for files packed into a zip of their own (0 stores every such file).
    public var level: Int
    /// The deflate level 0–9 for the small files gathered into pack archives (``packMemberLimit``).
    ///
    /// Default 0: they are stored, which makes the first launch fastest. Inflating tens of thousands of
    /// small members costs more CPU than writing them, while a stored member is one copy from the pack's
    /// read buffer. A level of 1–9 deflates each member
    /// that shrinks by ``minimumSaving``: a smaller bundle (about 40 % smaller for text), for apps whose
    /// size or download matters more than their first launch.
    public var packLevel: Int = 0
    /// Bytes in one sample chunk of the compressibility probe.
    public var sampleChunkSize: Int = 64 * 1024
    /// Chunks the probe deflates: the start, the end, and evenly spaced ones in between.
    public var sampleChunks: Int = 4
    /// A packed file is stored when deflating the sample (at level 1) saves less than this fraction.
    public var minimumSampleSaving: Double = 0.05
    /// A packed file is stored when deflating the whole file saves less than this fraction.
    public var minimumSaving: Double = 0.02
    /// How a packed file larger than a chunk's maximum is cut into content-defined chunks (`ContentChunking`):
    /// deflated, each chunk is compressed on its own, on several cores (see `ParallelDeflater`), and the
    /// manifest records where each starts and its SHA-256, so the expander inflates them on several cores and
    /// an upgrade fetches only the chunks it does not hold. Default `ContentChunking.standard` (64 KiB on average).
    public var chunking: ContentChunking = .standard
    /// Files of at most this many bytes that would be copied (not larger than ``threshold``, not a zip)
    /// are gathered into pack archives (`PackGrouping`) instead: a bundle of many small files is then a
    /// few hundred archives to read, not one file to open per asset. Default 64 KiB; 0 copies every file.
    public var packMemberLimit: UInt64 = 64 << 10
    /// Uncompressed bytes one pack archive holds at most (one member larger than the rest is alone).
    /// Default 1 MiB: about one `read` of the expander's buffer per few pack members, and archives small
    /// enough that a changed asset repacks little.
    public var packSize: UInt64 = 1 << 20

    /// Rules with `threshold` (default 1 MiB) and deflate `level` (default 6).
    public init(threshold: UInt64 = PackingRules.defaultThreshold, level: Int = 6) {
        self.threshold = threshold
        self.level = level
    }

    /// Checks the levels.
    /// - Throws: `.invalidArgument` when ``level`` or ``packLevel`` is not 0–9.
    public func validate() throws(AssetPackError) {
        guard (0...9).contains(level) else {
            throw AssetPackError(.invalidArgument, "deflate level \(level) is not 0–9")
        }
        guard (0...9).contains(packLevel) else {
            throw AssetPackError(.invalidArgument, "deflate level \(packLevel) for pack archives is not 0–9")
        }
    }

    /// True when a packed file of `size` bytes is cut into chunks (it is larger than one chunk can be).
    func cutsIntoChunks(size: UInt64) -> Bool { size > UInt64(chunking.maximum) }

    /// True when the file at `path` with `size` bytes goes into a zip of its own: it is larger than the
    /// threshold (any file, even an empty one, when the threshold is 0) and not a zip archive
    /// (`AssetPath/isZipArchiveName`), which stays a plain file.
    public func packs(_ path: AssetPath, size: UInt64) -> Bool {
        (threshold == 0 || size > threshold) && !path.isZipArchiveName
    }

    /// True when the file at `path` with `size` bytes goes into a pack archive with other small files:
    /// it is not packed on its own (``packs(_:size:)``), is not a zip archive, and is at most
    /// ``packMemberLimit`` bytes.
    public func gathers(_ path: AssetPath, size: UInt64) -> Bool {
        packMemberLimit > 0 && size <= packMemberLimit && !packs(path, size: size) && !path.isZipArchiveName
    }

    /// True when compressed bytes `compressed` of `original` save at least `fraction`.
    static func saves(_ compressed: UInt64, of original: UInt64, atLeast fraction: Double) -> Bool {
        guard original > 0 else { return false }
        return Double(compressed) <= Double(original) * (1 - fraction)
    }

    /// Everything in these rules that changes the bytes of a packed file, as one line for the manifest's
    /// `BundleManifest/packing` field: a bundle's archives are reused only by a build with the same line.
    /// How small files are grouped into pack archives is not in it: a pack archive is reused only for
    /// exactly the members it holds, which then give the same bytes whatever the grouping settings.
    public var fingerprint: String {
        "deflate \(level); store when \(sampleChunks)x\(sampleChunkSize)-byte sample saves < \(percent(minimumSampleSaving))"
            + " or whole file saves < \(percent(minimumSaving)); content-defined chunks \(chunking.name)"
            + (packLevel == 0 ? "; pack members stored" : "; pack members deflate \(packLevel)")
    }

    private func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)%" : "\(tenths / 10).\(tenths % 10)%"
    }
}
