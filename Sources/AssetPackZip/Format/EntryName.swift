/// Decodes entry names (APPNOTE 4.4.4 bit 11, appendix D): UTF-8 when flagged or when the bytes are valid
/// UTF-8, the Info-ZIP Unicode Path extra field (APPNOTE 4.6.9) when its CRC matches, IBM code page 437
/// otherwise. Names are never normalized, except that lookups and the folder listing read a name without
/// the `./` it starts with (``withoutLeadingCurrentFolder(_:)``).
package enum EntryName {
    /// `name` without the `./` it starts with (any number of them); empty for `.` or `./` alone. Tar-style
    /// tools name the entries of `.` so (`bsdtar -a -cf x.zip .` writes `./`, `./a/`, `./a/b.txt`), and
    /// `unzip`, Python's `zipfile` and 7-Zip extract them into the folder itself: `./a/b.txt` is `a/b.txt`.
    package static func withoutLeadingCurrentFolder(_ name: String) -> Substring {
        var rest = Substring(name)
        while rest.utf8.first == UInt8(ascii: ".") {
            let afterDot = rest.utf8.dropFirst()
            if afterDot.isEmpty { return rest[rest.endIndex...] }
            guard afterDot.first == UInt8(ascii: "/") else { break }
            rest = Substring(afterDot.dropFirst())
        }
        return rest
    }

    /// ``withoutLeadingCurrentFolder(_:)`` as a `String`: `name` itself (no copy) when it has no leading `./`.
    package static func pathName(_ name: String) -> String {
        let inside = withoutLeadingCurrentFolder(name)
        return inside.utf8.count == name.utf8.count ? name : String(inside)
    }

    /// The text of a raw name.
    static func decode(_ raw: [UInt8], flags: UInt16, extra: [UInt8]) -> String {
        if flags & GeneralPurposeFlag.utf8 == 0, let unicode = unicodePath(extra, rawName: raw) {
            return unicode
        }
        if let text = validUTF8(raw) { return text }
        return cp437(raw)
    }

    /// The text of the raw name at `name` of `bytes` (a central directory record read in place), with
    /// `unicodePath` the range of the record's 0x7075 block when it has one; `isRaw` is true when the
    /// text's UTF-8 is exactly the raw bytes (the usual name: no CP437, no Unicode Path field).
    static func decode(_ bytes: [UInt8], name: Range<Int>, flags: UInt16, unicodePath: Range<Int>?) -> (text: String, isRaw: Bool) {
        if flags & GeneralPurposeFlag.utf8 == 0, let unicodePath,
           let unicode = unicodePathBlock(Array(bytes[unicodePath]), rawName: Array(bytes[name])) {
            return (unicode, Array(unicode.utf8) == Array(bytes[name]))
        }
        let text: String? = bytes.withUnsafeBufferPointer { String(validating: UnsafeBufferPointer(rebasing: $0[name]), as: UTF8.self) }
        if let text { return (text, true) }
        return (cp437(Array(bytes[name])), false)
    }

    /// The name from a 0x7075 block whose CRC-32 matches the header's raw name.
    static func unicodePath(_ extra: [UInt8], rawName: [UInt8]) -> String? {
        ExtraField.find(ExtraFieldID.unicodePath, in: extra).flatMap { unicodePathBlock($0, rawName: rawName) }
    }

    /// The name from the data of a 0x7075 block, when its CRC-32 matches the header's raw name.
    static func unicodePathBlock(_ data: [UInt8], rawName: [UInt8]) -> String? {
        var cursor = ByteCursor(data)
        guard cursor.read(UInt8.self) == 1, let crc = cursor.read(UInt32.self),
              crc == CRC32.checksum(rawName), let utf8 = cursor.readBytes(cursor.remaining)
        else { return nil }
        return validUTF8(utf8)
    }

    /// The bytes as a String when they are valid UTF-8, nil otherwise.
    static func validUTF8(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    /// IBM PC code page 437 (the zip default before bit 11): 0x00–0x7F as ASCII, the rest from the table.
    static func cp437(_ bytes: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            let value = byte < 0x80 ? UInt32(byte) : cp437High[Int(byte) - 0x80]
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }

    private static let cp437High: [UInt32] = [
        0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF, 0x00EE, 0x00EC, 0x00C4, 0x00C5,
        0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9, 0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192,
        0x00E1, 0x00ED, 0x00F3, 0x00FA, 0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
        0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
        0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
        0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
        0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4, 0x03A6, 0x0398, 0x03A9, 0x03B4, 0x221E, 0x03C6, 0x03B5, 0x2229,
        0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248, 0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
    ]
}
