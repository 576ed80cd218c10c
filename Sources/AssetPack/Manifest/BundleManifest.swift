import AssetPackSystem

/// The manifest at the root of a packed bundle, `assetpack-meta/manifest.json`: it describes the logical
/// tree (the app's original asset folder) and how each file is stored in the bundle, so the expander can
/// plan without walking, report progress against known totals, check free space, and verify every byte.
///
/// Everything under the bundle's bookkeeping folder (``reservedDirectory``) belongs to assetpack and is never
/// copied; why it is named `assetpack-meta` is in <doc:BookkeepingFolder>.
public struct BundleManifest: Codable, Sendable, Equatable {
    /// The bookkeeping folder at a bundle's root, as the packer writes it.
    public static let reservedDirectory = "assetpack-meta"
    /// The manifest's path inside a bundle.
    public static let path = "assetpack-meta/manifest.json"
    /// A small file holding only ``identity``, so an up-to-date check reads a few bytes.
    public static let identityPath = "assetpack-meta/identity"

    /// The folder an install keeps its record in, at the top of a destination: a tree holding it is an
    /// installed tree, never part of a bundle's content.
    public static let installRecordDirectory = ".assetpack"

    /// True when `name`, at the root of a tree, is reserved: the bundle's bookkeeping folder
    /// (``reservedDirectory``) or an install's record folder (``installRecordDirectory``). The packer refuses
    /// a source that holds one at its top, and the installer never expands one from a source.
    public static func isReservedName<Name: StringProtocol>(_ name: Name) -> Bool {
        name == reservedDirectory || name == installRecordDirectory
    }

    /// The format version this code writes: 3, whose large packed files are cut into content-defined chunks
    /// (``Storage/chunking``), stored ones included. Format 2 added SHA-256s and the packed data's offset
    /// (``Storage/dataOffset``), with the identity computed differently (``ContentIdentity``).
    public static let currentFormat = 3
    /// The format versions this code reads: 1 (no hashes), 2 (blocks of a fixed size) and 3.
    public static let readableFormats = 1...3

    /// The manifest format version.
    public var format: Int
    /// The content identity: ``ContentIdentity`` over the logical entries (paths, kinds, sizes, CRC-32s).
    public var identity: String
    /// The packing threshold in bytes that built the bundle (files larger than this were packed).
    public var threshold: UInt64
    /// The tool that wrote it, e.g. `assetpack 0.1.0`.
    public var generator: String
    /// Every logical file and directory, sorted by path.
    public var entries: [Entry]
    /// How packed files were compressed (deflate level and the rules for storing instead), as one line the
    /// packer compares before it reuses a previous bundle's archives. Optional: absent in bundles written
    /// before it existed, ignored by the expander.
    public var packing: String? = nil

    /// Creates a manifest; ``identity`` is computed from `entries`.
    public init(threshold: UInt64, generator: String, entries: [Entry]) {
        self.format = Self.currentFormat
        self.threshold = threshold
        self.generator = generator
        self.entries = entries.sorted { Memory.bytesPrecede($0.path, $1.path) }
        self.identity = ContentIdentity.of(self.entries)
    }

    /// One logical entry.
    public struct Entry: Codable, Sendable, Equatable {
        /// The path in the logical tree, `/`-separated, no trailing slash.
        public var path: String
        /// File or directory (symlinks are not packed).
        public var kind: Kind
        /// Uncompressed size (files only).
        public var size: UInt64?
        /// CRC-32 of the contents (files only).
        public var crc32: UInt32?
        /// How the file is stored in the bundle (files only).
        public var storage: Storage?
        /// Permission bits, when not the default (0755 marks an executable).
        public var mode: UInt32?
        /// SHA-256 of the contents, 64 lowercase hex digits (files only). Optional: bundles built before it
        /// have none. The installer checks it for every file it downloads, `assetpack verify` for every file.
        public var sha256: String? = nil

        /// A directory entry (kept so that empty directories survive the round trip).
        public static func directory(_ path: String) -> Entry {
            Entry(path: path, kind: .directory, size: nil, crc32: nil, storage: nil, mode: nil)
        }

        /// A file entry.
        public static func file(_ path: String, size: UInt64, crc32: UInt32, storage: Storage, mode: UInt32? = nil,
                                sha256: String? = nil) -> Entry {
            Entry(path: path, kind: .file, size: size, crc32: crc32, storage: storage, mode: mode, sha256: sha256)
        }
    }

    /// The kind of a logical entry.
    public enum Kind: String, Codable, Sendable {
        case file, directory
    }

    /// Where a file's bytes are in the bundle.
    public struct Storage: Codable, Sendable, Equatable {
        /// `plain`: copied byte for byte at ``file``; `packed`: entry ``entry`` of the zip ``file``.
        public var form: Form
        /// The bundle-relative path of the plain file or the packing archive.
        public var file: String
        /// The entry name inside the archive (packed only).
        public var entry: String?
        /// `stored` or `deflate` (packed only).
        public var method: String?
        /// Bytes of the compressed data (packed only).
        public var compressedSize: UInt64?
        /// Where the blocks of a packed entry start, for a file the packer cut into blocks: one `[uncompressed
        /// offset, compressed offset]` pair per block, offsets relative to the file and to the entry's data, the
        /// first `[0, 0]`. Deflated, each block is independently decodable: every block but the last ends with
        /// a full flush, so any other unzip reads the entry as one ordinary deflate stream; stored, both offsets
        /// are the same. The blocks are the content-defined chunks of ``chunking`` (format 3), or blocks of a
        /// fixed size (format 2: deflated files larger than 4 MiB, in blocks of 4 MiB). Nil otherwise.
        public var blocks: [[UInt64]]?
        /// For a file with ``blocks``: the SHA-256 of each block's uncompressed bytes, in order (64 hex digits
        /// each), so that a client can fetch and check one block alone, and reuse the blocks of an installed
        /// copy that still hash the same. Nil otherwise, and in bundles built before it.
        public var blockSHA256: [String]? = nil
        /// Where the entry's compressed data begins in the archive ``file`` (just after its local header), for
        /// a packed entry: the entry, or one of its blocks, is then one byte range of the archive, fetched
        /// without reading the header first. Nil for plain files and in bundles built before it.
        public var dataOffset: UInt64? = nil
        /// For a file whose ``blocks`` are content-defined chunks: the ``ContentChunking/name`` of the rule that
        /// cut them (`gear/65536`), by which an installer cuts the files it holds to find chunks to reuse. Nil
        /// for blocks of a fixed size and for a file without blocks.
        public var chunking: String? = nil
        /// For a file with content-defined ``blocks`` that changed since the bundle this one was built over: patches
        /// that make runs of its new chunks from the bytes of that previous version, much smaller than the chunks
        /// when little changed. Nil otherwise.
        public var patches: Patches? = nil

        /// Patches from a file's previous version to runs of its chunks (``Storage/patches``), all in one bundle file.
        public struct Patches: Codable, Sendable, Equatable {
            /// The bundle-relative path of the file holding the patches, one after the other.
            public var file: String
            /// The SHA-256 of the previous version the patches apply to.
            public var baseSHA256: String
            /// Bytes of that previous version.
            public var baseSize: UInt64
            /// One `[first chunk, chunk count, offset, length]` per patch: the run of chunks it makes, and where its
            /// bytes (a raw deflate stream of instructions) are in ``file``. In order of chunks and of offsets.
            public var runs: [[UInt64]]

            /// Patches in `file` from the previous version `baseSHA256` of `baseSize` bytes, `runs` as ``runs`` says.
            public init(file: String, baseSHA256: String, baseSize: UInt64, runs: [[UInt64]]) {
                (self.file, self.baseSHA256, self.baseSize, self.runs) = (file, baseSHA256, baseSize, runs)
            }
        }

        /// Stored as is at `file`.
        public static func plain(_ file: String) -> Storage {
            Storage(form: .plain, file: file, entry: nil, method: nil, compressedSize: nil, blocks: nil)
        }

        /// Packed as `entry` of the zip at `archive`.
        public static func packed(archive: String, entry: String, method: String, compressedSize: UInt64,
                                  blocks: [[UInt64]]? = nil, blockSHA256: [String]? = nil, dataOffset: UInt64? = nil,
                                  chunking: String? = nil) -> Storage {
            Storage(form: .packed, file: archive, entry: entry, method: method, compressedSize: compressedSize, blocks: blocks,
                    blockSHA256: blockSHA256, dataOffset: dataOffset, chunking: chunking)
        }

        /// Plain or packed.
        public enum Form: String, Codable, Sendable {
            case plain, packed
        }
    }
}
