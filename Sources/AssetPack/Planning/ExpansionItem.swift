import AssetPackZip

/// One thing the expander creates under the destination: a directory, a file, or (when allowed) a symlink.
public struct ExpansionItem: Sendable {
    /// What kind of node the item becomes.
    public enum Kind: String, Sendable, Hashable {
        /// A folder.
        case directory
        /// A regular file, written and verified.
        case file
        /// A symbolic link (only when ``ExpansionOptions/allowSymlinks`` is set).
        case symlink
    }

    // Stored properties in this order leave no padding between them: 112 bytes an item (a million-file
    // plan holds a million), with the CRC-32 and the permission bits stored narrower than they read.
    /// Where the item goes, relative to the destination.
    public let path: AssetPath
    /// Bytes of a file (0 otherwise).
    public let size: UInt64
    /// ``sha256`` as its 32 bytes (a plan holds one per file).
    let digest: SHA256Digest?
    /// Directory, file or symlink.
    public let kind: Kind
    /// Whether ``crc32`` is known (``storedCRC32`` holds it).
    private let hasCRC32: Bool
    /// ``permissions`` (at most `0o7777`).
    private let storedPermissions: UInt16
    /// ``crc32``, or 0 when it is not known.
    private let storedCRC32: UInt32
    /// For a ``Origin/zipEntry(_:entryName:)`` origin planned from the archive's own entries, the entry's
    /// position in the archive (so the writer finds it without looking its name up); -1 otherwise.
    let entryPosition: Int32
    /// Where the bytes come from.
    let origin: Origin
    /// The link target and the block index, which few items have, boxed: inline they would add 32 bytes
    /// to every item of every plan (a million-file plan holds a million items).
    private let rare: Rare?

    /// The CRC-32 the file must have, when the bundle or archive states one; nil for a plain file of a
    /// tree without a manifest (its CRC is computed while copying and recorded).
    public var crc32: UInt32? { hasCRC32 ? storedCRC32 : nil }
    /// Permission bits after ``PermissionPolicy`` (no setuid, setgid, sticky or world-writable bits).
    public var permissions: UInt32 { UInt32(storedPermissions) }
    /// The link target (symlinks only).
    public var symlinkTarget: String? { rare?.symlinkTarget }
    /// The SHA-256 the file must have (64 hex digits), when the bundle's manifest records one.
    public var sha256: String? { digest?.hex }
    /// The block index of a packed entry deflated in independent blocks, from the bundle manifest: the
    /// entry is then inflated on several threads by the installer. Nil otherwise.
    var blocks: BlockLayout? { rare?.blocks }

    /// The number of blocks a ``BlockJournal`` records for this file: its blocks inflated in parallel, or the
    /// blocks of a delivered file (``DeliveredLayout/blocks``, stored ones too); nil for a file without.
    var journaledBlockCount: Int? {
        if case .delivered(let layout) = origin, let blocks = layout.blocks { return blocks.count }
        return blocks?.pairs.count
    }

    /// Where an item's bytes come from, resolved once while planning (``ResolvedSource``) into what the
    /// installer reads without asking the source again.
    enum Origin: Sendable {
        /// Nothing to read: a directory or a symlink.
        case none
        /// The file at this path of the plan's source (``ExpansionPlan/source``), read with its `open`.
        case stream(AssetPath)
        /// The regular file at this path below the plan's folder on disk (``ExpansionPlan/folder``).
        case localFile(AssetPath)
        /// Entry `entryName` of a zip archive: the source itself, an archive inside it, or a bundle's
        /// packing archive.
        case zipEntry(ArchiveHandle, entryName: String)
        /// An entry met while going through the central directory of an archive that does not hold its
        /// entries (``ZipLimits/maxHeldDirectoryBytes``), carried whole: there is no table to find it by
        /// name. Boxed, as ``delivered(_:)`` is.
        indirect case scannedEntry(ArchiveHandle, ZipEntry)
        /// A file of the plan's source, a bundle whose stored files are delivered (``DeliveredBundleSource``):
        /// what to ask its delivery for. Boxed: it is several times larger than the other origins, and an enum
        /// is as large as its largest case, so unboxed it would make every item of every plan that large.
        indirect case delivered(DeliveredLayout)
    }

    init(path: AssetPath, kind: Kind, size: UInt64 = 0, crc32: UInt32? = nil, permissions: UInt32,
         symlinkTarget: String? = nil, origin: Origin = .none, blocks: BlockLayout? = nil, digest: SHA256Digest? = nil,
         entryPosition: Int = -1) {
        self.digest = digest
        self.entryPosition = Int32(clamping: entryPosition)
        self.path = path
        self.kind = kind
        self.size = size
        self.hasCRC32 = crc32 != nil
        self.storedCRC32 = crc32 ?? 0
        self.storedPermissions = UInt16(truncatingIfNeeded: permissions & 0o7777)  // PermissionPolicy leaves at most 0o775
        self.origin = origin
        self.rare = symlinkTarget == nil && blocks == nil ? nil : Rare(symlinkTarget: symlinkTarget, blocks: blocks)
    }

    /// The parts of an item that few items have.
    private final class Rare: Sendable {
        let symlinkTarget: String?
        let blocks: BlockLayout?

        init(symlinkTarget: String?, blocks: BlockLayout?) {
            self.symlinkTarget = symlinkTarget
            self.blocks = blocks
        }
    }

    /// A directory item.
    static func directory(_ path: AssetPath, permissions: UInt32 = PermissionPolicy.defaultDirectory) -> ExpansionItem {
        ExpansionItem(path: path, kind: .directory, permissions: permissions)
    }
}

/// The block index of a packed entry (``BundleManifest/Storage/blocks``) and how many threads inflate it.
struct BlockLayout: Sendable {
    /// `[uncompressed offset, compressed offset]` where each block starts, as the manifest says.
    let pairs: [[UInt64]]
    /// Threads inflating blocks at once.
    let jobs: Int
}
