/// What an install did. Encoded, its stored fields by name (what `assetpack expand --json` prints).
public struct ExpansionResult: Sendable, Equatable, Encodable {
    /// The destination folder (absolute).
    public var destination: String
    /// True when the destination already held this bundle: nothing was read beyond the record and the
    /// bundle's identity, and nothing was written.
    public var upToDate: Bool
    /// The stamp recorded for the destination: a bundle's identity (``BundleManifest/identity``), or for a tree
    /// without a manifest its content identity plus the options that change the result.
    public var identity: String
    /// Files (and symlinks) in the expanded tree; 0 when ``upToDate`` was answered from the record alone.
    public var files: Int
    /// Bytes in the expanded tree; 0 when ``upToDate`` was answered from the record alone.
    public var bytes: UInt64
    /// Files written by this call.
    public var filesWritten: Int
    /// Bytes written by this call.
    public var bytesWritten: UInt64
    /// Unchanged files hard-linked from the previous version instead of being rewritten.
    public var filesLinked: Int
    /// Files kept from an interrupted earlier call.
    public var filesResumed: Int
    /// Bytes kept from an interrupted earlier call: the files of ``filesResumed`` and the written blocks of
    /// a large block-indexed file it left unfinished (which this call completed instead of rewriting).
    public var bytesResumed: UInt64
    /// Wall-clock seconds the call took.
    public var seconds: Double
    /// What the previous tree held that assetpack did not write, carried into the new tree (in path order; a
    /// folder once, ending with `/`). See ``ExpansionOptions/removesUnknownEntries``.
    public var unknownKept: [String] = []
    /// What the previous tree held that assetpack did not write, removed because
    /// ``ExpansionOptions/removesUnknownEntries`` asked for it (in path order; a folder once, ending with `/`).
    public var unknownDeleted: [String] = []

    /// A result with the given fields; the counts default to zero.
    public init(destination: String, upToDate: Bool, identity: String, files: Int = 0, bytes: UInt64 = 0,
                filesWritten: Int = 0, bytesWritten: UInt64 = 0, filesLinked: Int = 0, filesResumed: Int = 0,
                bytesResumed: UInt64 = 0, seconds: Double = 0) {
        self.destination = destination
        self.upToDate = upToDate
        self.identity = identity
        self.files = files
        self.bytes = bytes
        self.filesWritten = filesWritten
        self.bytesWritten = bytesWritten
        self.filesLinked = filesLinked
        self.filesResumed = filesResumed
        self.bytesResumed = bytesResumed
        self.seconds = seconds
    }
}
