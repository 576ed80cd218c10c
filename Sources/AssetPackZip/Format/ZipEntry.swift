import AssetPackSystem

/// What an entry is, from its name and external attributes (APPNOTE 4.4.15).
public enum EntryKind: String, Sendable, Hashable, Codable {
    /// A regular file.
    case file
    /// A directory (name ends in `/`, or the MS-DOS or Unix directory bit is set).
    case directory
    /// A symbolic link; its data is the link target.
    case symlink
    /// A FIFO, socket or device node: never created by this package.
    case special
}

/// One entry of an archive as the central directory describes it (APPNOTE 4.3.12), with Zip64 values
/// applied. A plain value: safe to pass between threads.
public struct ZipEntry: Sendable, Hashable {
    /// The position of this entry in the central directory.
    public let index: Int
    /// The decoded name (UTF-8, Unicode Path extra field, or CP437), exactly as stored, never normalized.
    public let name: String
    /// The name's bytes as stored in the central header, made from ``name`` when they are its UTF-8.
    public var rawName: [UInt8] { differentRawName ?? Array(name.utf8) }
    /// The stored name's bytes only when they are not ``name``'s UTF-8 (a CP437 name, a Unicode Path
    /// field): the usual entry keeps its name once, as text.
    private let differentRawName: [UInt8]?
    /// How the data is compressed.
    public let method: CompressionMethod
    /// General-purpose bit flags (APPNOTE 4.4.4).
    public let flags: UInt16
    /// The CRC-32 of the uncompressed data.
    public let crc32: UInt32
    /// Bytes of (compressed) data in the archive.
    public let compressedSize: UInt64
    /// Bytes after decompression.
    public let uncompressedSize: UInt64
    /// Where the entry's local header starts in the archive (already corrected for a prefix).
    public let localHeaderOffset: UInt64
    /// Where the entry's central header starts in the archive (for error messages).
    package let centralHeaderOffset: UInt64
    /// "Version made by" (APPNOTE 4.4.2): the high byte is the host system (3 = Unix).
    public let versionMadeBy: UInt16
    /// External file attributes: on Unix hosts the high 16 bits are `st_mode`.
    public let externalAttributes: UInt32
    /// The modification time fields.
    public let modified: DOSDateTime
    /// The first byte past the bytes this entry may use (the next local header or the central directory).
    var dataLimit: UInt64

    init(index: Int, name: String, rawName: [UInt8]?, method: CompressionMethod, flags: UInt16, crc32: UInt32,
         compressedSize: UInt64, uncompressedSize: UInt64, localHeaderOffset: UInt64, centralHeaderOffset: UInt64,
         versionMadeBy: UInt16, externalAttributes: UInt32, modified: DOSDateTime, dataLimit: UInt64) {
        self.index = index
        self.name = name
        self.differentRawName = rawName.flatMap { $0.elementsEqual(name.utf8) ? nil : $0 }  // nil: `name`'s UTF-8
        self.method = method
        self.flags = flags
        self.crc32 = crc32
        self.compressedSize = compressedSize
        self.uncompressedSize = uncompressedSize
        self.localHeaderOffset = localHeaderOffset
        self.centralHeaderOffset = centralHeaderOffset
        self.versionMadeBy = versionMadeBy
        self.externalAttributes = externalAttributes
        self.modified = modified
        self.dataLimit = dataLimit
    }

    /// True when the stored name's bytes are exactly ``name``'s UTF-8 (no CP437 decoding, no Unicode Path field).
    package var nameIsRawBytes: Bool { differentRawName == nil }

    /// How many bytes the stored name has.
    package var rawNameCount: Int { differentRawName?.count ?? name.utf8.count }

    /// True when `bytes` are the stored name's bytes, compared without making ``rawName``.
    package func hasRawName(_ bytes: ArraySlice<UInt8>) -> Bool {
        if let differentRawName { return differentRawName[...] == bytes }
        var text = name
        return text.withUTF8 { own in
            bytes.withUnsafeBufferPointer { other in
                own.count == other.count && (own.isEmpty || Memory.equal(own.baseAddress!, other.baseAddress!, count: own.count))
            }
        }
    }

    /// True when bit 0 or 6 of the flags marks the entry as encrypted. WinZip AES (method 99) sets bit 0
    /// too; method 99 without it is reported as an unsupported method instead.
    public var isEncrypted: Bool {
        flags & (GeneralPurposeFlag.encrypted | GeneralPurposeFlag.strongEncryption) != 0
    }

    /// True when CRC and sizes follow the data in a data descriptor (bit 3).
    public var hasDataDescriptor: Bool { flags & GeneralPurposeFlag.dataDescriptor != 0 }

    /// The Unix `st_mode` from the external attributes, when the entry was made on a Unix-like host.
    public var unixMode: UInt32? {
        let host = versionMadeBy >> 8
        // 3 = Unix, 19 = OS X (Darwin); both store st_mode in the high half.
        guard host == 3 || host == 19 else { return nil }
        let mode = externalAttributes >> 16
        return mode == 0 ? nil : mode
    }

    /// The permission bits (0o777 plus setuid/setgid/sticky) when known.
    public var permissions: UInt32? { unixMode.map { $0 & 0o7777 } }

    /// File, directory, symlink or special node.
    public var kind: EntryKind {
        if name.hasSuffix("/") { return .directory }
        if let mode = unixMode {
            switch mode & 0o170000 {
            case 0o040000: return .directory
            case 0o120000: return .symlink
            case 0o100000, 0: return .file
            default: return .special
            }
        }
        // MS-DOS directory attribute.
        return externalAttributes & 0x10 != 0 ? .directory : .file
    }

    /// True when the owner-execute bit is set.
    public var isExecutable: Bool { (unixMode ?? 0) & 0o100 != 0 }
}

extension ZipEntry {
    /// Refuses what the readers cannot decode: encryption, patched data, methods other than stored and deflate.
    /// - Throws: ``ZipError`` at the local header: `.encrypted`, `.unsupportedFeature` or `.unsupportedMethod`.
    package func checkReadable() throws(ZipError) {
        try Self.checkReadable(isEncrypted: isEncrypted, flags: flags, method: method, offset: localHeaderOffset)
    }

    /// ``checkReadable()`` of an entry with these fields, whose local header is at `offset` (also for
    /// ``ZipStreamEntry``).
    static func checkReadable(isEncrypted: Bool, flags: UInt16, method: CompressionMethod,
                              offset: UInt64) throws(ZipError) {
        func fail(_ code: ZipError.Code, _ message: String) -> ZipError {
            ZipError(code, message, offset: offset)
        }
        if isEncrypted { throw fail(.encrypted, "entry is encrypted; encrypted entries are not supported") }
        if flags & GeneralPurposeFlag.patchedData != 0 { throw fail(.unsupportedFeature, "patched data is not supported") }
        guard method.isSupported else {
            throw fail(.unsupportedMethod, "compression method \(method) is not supported (only stored and deflate)")
        }
    }
}
