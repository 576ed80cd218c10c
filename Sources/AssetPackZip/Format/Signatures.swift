/// Record signatures and magic values of the zip format (APPNOTE.TXT 6.3.10, section 4.3).
enum Signature {
    /// Local file header, "PK\u{3}\u{4}" (APPNOTE 4.3.7).
    static let localFileHeader: UInt32 = 0x0403_4b50
    /// Data descriptor, optional before the descriptor fields (APPNOTE 4.3.9).
    static let dataDescriptor: UInt32 = 0x0807_4b50
    /// Central directory file header (APPNOTE 4.3.12).
    static let centralDirectoryHeader: UInt32 = 0x0201_4b50
    /// End of central directory record (APPNOTE 4.3.16).
    static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    /// Zip64 end of central directory record (APPNOTE 4.3.14).
    static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    /// Zip64 end of central directory locator (APPNOTE 4.3.15).
    static let zip64Locator: UInt32 = 0x0706_4b50
}

/// Extra-field header IDs this library reads or writes (APPNOTE 4.5, 4.6).
enum ExtraFieldID {
    /// Zip64 extended information (APPNOTE 4.5.3).
    static let zip64: UInt16 = 0x0001
    /// Info-ZIP Unicode Path (APPNOTE 4.6.9).
    static let unicodePath: UInt16 = 0x7075
    /// Alignment padding as written by Android's apksigner/zipalign: 2-byte alignment, then zero bytes.
    static let alignmentPadding: UInt16 = 0xD935
}

/// General-purpose bit flags (APPNOTE 4.4.4).
enum GeneralPurposeFlag {
    /// Bit 0: the entry is encrypted.
    static let encrypted: UInt16 = 1 << 0
    /// Bit 3: CRC and sizes are in a data descriptor after the data.
    static let dataDescriptor: UInt16 = 1 << 3
    /// Bit 5: compressed patched data.
    static let patchedData: UInt16 = 1 << 5
    /// Bit 6: strong encryption.
    static let strongEncryption: UInt16 = 1 << 6
    /// Bit 11: name and comment are UTF-8.
    static let utf8: UInt16 = 1 << 11
}

/// Limits the format itself imposes.
enum FormatLimit {
    /// A 16-bit field's "look in the Zip64 record" value.
    static let max16: UInt16 = 0xFFFF
    /// A 32-bit field's "look in the Zip64 extra field" value.
    static let max32: UInt32 = 0xFFFF_FFFF
    /// The end record is 22 bytes plus a comment of at most 65,535 bytes: search no further back.
    static let endRecordSearchWindow = 22 + 65_535
    /// Fixed part of a local file header.
    static let localHeaderSize = 30
    /// Fixed part of a central directory header.
    static let centralHeaderSize = 46
    /// Fixed part of the end of central directory record.
    static let endRecordSize = 22
    /// The Zip64 end of central directory locator.
    static let zip64LocatorSize = 20
    /// Fixed part of the Zip64 end of central directory record.
    static let zip64EndRecordSize = 56
}
