import AssetPackSystem

/// How a ``ZipWriter`` writes entries.
public struct ZipWriterOptions: Sendable, Hashable {
    /// The deflate level 0–9 for entries that do not say otherwise. Default 6.
    public var level: Int
    /// When set, every entry gets this modification time (Unix seconds) and permissions are normalized
    /// (0644, or 0755 for directories and executables): the same inputs give byte-identical archives.
    public var fixedTime: Int64?
    /// Align the data of stored entries to this many bytes (4 as zipalign does, or 4096/16384 for a
    /// page) with extra-field padding, so they can be memory-mapped in place. 0 or 1: no alignment;
    /// otherwise a power of two up to 32,768 (``ZipWriter`` refuses other values).
    public var storedAlignment: Int

    /// Options with deflate level 6, real timestamps and no alignment.
    public init(level: Int = 6, fixedTime: Int64? = nil, storedAlignment: Int = 0) {
        self.level = level
        self.fixedTime = fixedTime
        self.storedAlignment = storedAlignment
    }

    /// Deterministic options: timestamps from `SOURCE_DATE_EPOCH` when it is set, else 1980-01-01.
    public static func deterministic(level: Int = 6, storedAlignment: Int = 0) -> ZipWriterOptions {
        ZipWriterOptions(level: level, fixedTime: sourceDateEpoch ?? 315_532_800, storedAlignment: storedAlignment)
    }

    /// The value of the `SOURCE_DATE_EPOCH` environment variable, when it is a number.
    public static var sourceDateEpoch: Int64? {
        sourceDateEpoch(from: CurrentProcess.environment("SOURCE_DATE_EPOCH"))
    }

    /// Parses a `SOURCE_DATE_EPOCH` value: decimal seconds, surrounding spaces and newlines allowed; nil otherwise.
    static func sourceDateEpoch(from raw: String?) -> Int64? {
        raw.flatMap { Int64($0.trimmingSpaces) }
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        let trimmed = drop { $0 == " " || $0 == "\n" }
        return trimmed.prefix { $0 != " " && $0 != "\n" }
    }
}

/// What the writer recorded for an entry it wrote.
public struct WrittenEntry: Sendable, Hashable {
    /// The entry's name.
    public var name: String
    /// Stored or deflate.
    public var method: CompressionMethod
    /// CRC-32 of the uncompressed data.
    public var crc32: UInt32
    /// Bytes before compression.
    public var uncompressedSize: UInt64
    /// Bytes in the archive.
    public var compressedSize: UInt64
    /// Where the local header starts.
    public var localHeaderOffset: UInt64
    /// Where the data starts.
    public var dataOffset: UInt64
    /// Where the independent deflate blocks start, for an entry written by a ``ParallelDeflater``
    /// (``ZipWriter/addFile(_:from:deflater:permissions:modified:)``); nil otherwise.
    package var blocks: DeflateBlockIndex? = nil
}
