import AssetPackZip

/// Checks the packed bundles inside an app container — an APK, an App Bundle (AAB), an IPA, or any zip —
/// the way the expander will read them: is each bundle's manifest there, did the container keep the packed
/// archives stored (not deflated a second time), does stored data start at an aligned offset so it can be
/// mapped in place, and is every file the manifest lists there with the size and CRC-32 it records.
///
/// A bundle is found by its manifest at any depth: an entry `…/assetpack-meta/manifest.json` makes the folder
/// above it a bundle (`assets/assets.bundle` in an APK, `base/assets/…` in an AAB, `Payload/App.app/…` in an
/// IPA). Its manifest and archives are read as the expander reads them (``BundleManifest/locate(in:)``).
///
/// What is compared, without reading file data:
/// - a plain file: the container's entry, its uncompressed size and its CRC-32;
/// - a packed file: the archive's entry in the container (stored, aligned), and inside the archive the
///   entry the manifest names, its size and CRC-32 — and, for a file with a block index, its compressed
///   size, which the index was cut for;
/// - alignment (``Options/alignment``): the data of every stored plain file and archive the manifest refers
///   to starts at a multiple of it (4 by default, as `zipalign 4` leaves it; 4096 for page alignment).
///
/// What applies depends on where the bundle is (``Layout``): an APK or a zip needs all three; in an App
/// Bundle alignment is left to bundletool; an IPA is unpacked at install, so only the files are compared.
///
/// A container with no bundle is a problem too. Everything found is in ``problems``; the container must be
/// a readable zip (else the initializer throws). Only central directories and local headers are read.
public struct ContainerCheck: Sendable {
    /// How strict the check is.
    public struct Options: Sendable {
        /// Stored data must start at a multiple of this many bytes: 4 (`zipalign 4`), or 4096 for pages.
        public var alignment: UInt64
        /// The limits the container and the archives inside it are read with.
        public var limits: ZipLimits

        /// Options with the given alignment (default 4) and limits.
        public init(alignment: UInt64 = 4, limits: ZipLimits = .default) {
            self.alignment = max(1, alignment)
            self.limits = limits
        }
    }

    /// One bundle found in the container.
    public struct Bundle: Sendable, Equatable {
        /// Its folder in the container ("" when the bundle is the whole container).
        public let root: String
        /// What kind of container it is in, which decides what is checked.
        public let layout: Layout
        /// The manifest's entry name in the container.
        public let manifest: String
        /// Files its manifest lists (0 when the manifest could not be read).
        public let files: Int
        /// Its packing archives, as entry names of the container.
        public let archives: [String]
        /// Stored members of the container checked for alignment.
        public let alignedEntries: Int
        /// What is wrong with it.
        public let problems: [Problem]

        /// True when every packing archive is stored by the container.
        public var stored: Bool { !problems.contains { $0.aspect == .stored } }
        /// True when every stored member it refers to is aligned.
        public var aligned: Bool { !problems.contains { $0.aspect == .aligned } }
        /// True when the manifest reads and every file it lists is there as it records.
        public var matches: Bool { !problems.contains { $0.aspect == .matches } }
    }

    /// The container's name (its path).
    public let container: String
    /// The alignment stored data was checked against.
    public let alignment: UInt64
    /// Every bundle found, by folder.
    public let bundles: [Bundle]

    /// Every problem: the bundles' in order, or the missing bundle.
    public var problems: [Problem] {
        bundles.isEmpty ? [Self.noBundle(container)] : bundles.flatMap(\.problems)
    }

    /// True when there is at least one bundle and nothing is wrong.
    public var passed: Bool { problems.isEmpty }

    /// Checks the container at `path`.
    /// - Throws: ``AssetPackError`` when it is not a readable zip (`.io`, `.archive`, `.limitExceeded`).
    public init(path: String, options: Options = Options()) throws(AssetPackError) {
        self.init(archive: try zipLayer(ZipArchive(path: path, limits: options.limits)), options: options)
    }

    /// Checks the container `archive`.
    public init(archive: ZipArchive, options: Options = Options()) {
        container = archive.name
        alignment = options.alignment
        bundles = Self.bundleRoots(in: archive).map { root in
            BundleCheck(archive: archive, root: root, options: options).run()
        }
    }

    /// The folders holding a manifest, sorted by bytes.
    static func bundleRoots(in archive: ZipArchive) -> [String] {
        var roots = Set<String>()
        let tail = BundleManifest.path
        for entry in archive.entries where entry.kind == .file {
            if entry.name == tail {
                roots.insert("")
            } else if entry.name.hasSuffix("/" + tail) {
                roots.insert(String(entry.name.dropLast(tail.utf8.count + 1)))
            }
        }
        return roots.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func noBundle(_ container: String) -> Problem {
        Problem(kind: .noBundle, path: container,
                message: "holds no assetpack bundle (no \(BundleManifest.path) at any depth)")
    }
}
