/// One entry as its local file header describes it (APPNOTE 4.3.7), met by ``ZipStreamReader``. It holds less
/// than ``ZipEntry``: no external attributes (the kind comes from the name alone) and, with a data descriptor,
/// no CRC-32 or sizes until ``ZipStreamReader/currentEntry`` has the entry read to its end and verified.
public struct ZipStreamEntry: Sendable, Hashable {
    /// The decoded name (UTF-8, Unicode Path extra field, or CP437), exactly as stored, never normalized.
    public let name: String
    /// The name's bytes as stored in the local header.
    public let rawName: [UInt8]
    /// How the data is compressed.
    public let method: CompressionMethod
    /// General-purpose bit flags (APPNOTE 4.4.4).
    public let flags: UInt16
    /// The modification time fields.
    public let modified: DOSDateTime
    /// The CRC-32 of the uncompressed data; nil until verified when it is in a data descriptor.
    public internal(set) var crc32: UInt32?
    /// Bytes of (compressed) data in the archive; nil until verified when it is in a data descriptor.
    public internal(set) var compressedSize: UInt64?
    /// Bytes after decompression; nil until verified when it is in a data descriptor.
    public internal(set) var uncompressedSize: UInt64?
    /// Where the entry's local header starts in the stream.
    public let localHeaderOffset: UInt64
    /// The local header's extra field, raw (APPNOTE 4.5).
    public let extra: [UInt8]

    init(name: String, rawName: [UInt8], method: CompressionMethod, flags: UInt16, modified: DOSDateTime,
         localHeaderOffset: UInt64, extra: [UInt8]) {
        self.name = name
        self.rawName = rawName
        self.method = method
        self.flags = flags
        self.modified = modified
        self.localHeaderOffset = localHeaderOffset
        self.extra = extra
    }

    /// A directory when the name ends in `/`, a file otherwise (the local header holds no file attributes).
    public var kind: EntryKind { name.hasSuffix("/") ? .directory : .file }

    /// True when bit 0 or 6 of the flags, or method 99 (AES), marks the entry as encrypted.
    public var isEncrypted: Bool {
        flags & (GeneralPurposeFlag.encrypted | GeneralPurposeFlag.strongEncryption) != 0 || method == .aes
    }

    /// True when CRC and sizes follow the data in a data descriptor (bit 3).
    public var hasDataDescriptor: Bool { flags & GeneralPurposeFlag.dataDescriptor != 0 }

    /// True when the local header carries a Zip64 extended information extra field (APPNOTE 4.5.3), which
    /// also means a data descriptor after the data holds 64-bit sizes.
    public var hasZip64Field: Bool { ExtraField.find(ExtraFieldID.zip64, in: extra) != nil }

    /// This entry with CRC-32 and sizes filled in (from the local header, or once verified).
    func with(_ descriptor: DataDescriptor) -> ZipStreamEntry {
        var copy = self
        copy.crc32 = descriptor.crc32
        copy.compressedSize = descriptor.compressedSize
        copy.uncompressedSize = descriptor.uncompressedSize
        return copy
    }
}
