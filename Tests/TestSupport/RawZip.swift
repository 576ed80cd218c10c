import AssetPackZip
import Foundation

/// A zip archive assembled record by record from plain values, for hostile inputs that no writer produces
/// on request: any name bytes (NUL, backslashes, invalid UTF-8), any flags, modes, sizes, CRCs and
/// offsets, local headers that disagree with the central directory, any comment. Whatever a test does not
/// set is a valid archive: CRC-32 and sizes are computed from the data, local offsets are where the
/// records land. It deliberately shares no code with the library's writer, so a test cannot inherit the
/// writer's refusals or its mistakes.
///
/// Layout follows APPNOTE 4.3.7 (local header), 4.3.12 (central header) and 4.3.16 (end record).
public struct RawZip: Sendable {
    /// One entry; `data` is what the archive holds (already deflated when `method` is 8).
    public struct Entry: Sendable {
        public var name: [UInt8]
        public var data: [UInt8]
        public var method: UInt16 = 0
        public var flags: UInt16 = 0
        /// `st_mode` for the external attributes' high half (read only when ``host`` is Unix).
        public var mode: UInt32 = 0o100644
        /// The host of "version made by" (APPNOTE 4.4.2): 3 Unix, whose `st_mode` readers take; 0 MS-DOS and
        /// Windows, whose entries state no mode.
        public var host: UInt8 = 3
        /// The external attributes' low half: MS-DOS attributes (0x10 a folder, 0x20 archive).
        public var dosAttributes: UInt16 = 0
        /// Overrides: nil means "computed from the data".
        public var crc32: UInt32?
        public var uncompressedSize: UInt32?
        public var compressedSize: UInt32?
        /// The local header's own name, CRC and uncompressed size, when they should disagree with the central one.
        public var localName: [UInt8]?
        public var localCRC32: UInt32?
        public var localUncompressedSize: UInt32?
        /// The central header's local-header offset, when it should point somewhere else.
        public var localHeaderOffset: UInt32?
        /// The disk the entry claims to start on.
        public var diskNumberStart: UInt16 = 0

        public init(name: [UInt8], data: [UInt8], method: UInt16 = 0, flags: UInt16 = 0, mode: UInt32 = 0o100644) {
            self.name = name
            self.data = data
            self.method = method
            self.flags = flags
            self.mode = mode
        }
    }

    public var entries: [Entry]
    public var comment: [UInt8]

    public init(_ entries: [Entry] = [], comment: [UInt8] = []) {
        self.entries = entries
        self.comment = comment
    }

    // MARK: - Entries

    /// A stored regular file.
    public static func file(_ name: String, _ data: [UInt8], mode: UInt32 = 0o644) -> Entry {
        Entry(name: Array(name.utf8), data: data, mode: 0o100000 | mode)
    }

    /// A stored regular file whose name is raw bytes.
    public static func file(raw name: [UInt8], _ data: [UInt8], flags: UInt16 = 0) -> Entry {
        Entry(name: name, data: data, flags: flags)
    }

    /// A deflated regular file (`uncompressed` is deflated with the library's writer, then copied here).
    public static func deflated(_ name: String, _ uncompressed: [UInt8]) throws -> Entry {
        var entry = Entry(name: Array(name.utf8), data: try deflate(uncompressed), method: 8)
        entry.crc32 = CRC32.checksum(uncompressed)
        entry.uncompressedSize = UInt32(uncompressed.count)
        return entry
    }

    /// A file as a Windows tool writes it: made on MS-DOS, so no Unix mode, only the archive attribute.
    public static func windowsFile(_ name: String, _ data: [UInt8]) -> Entry {
        var entry = Entry(name: Array(name.utf8), data: data, mode: 0)
        entry.host = 0
        entry.dosAttributes = 0x20
        return entry
    }

    /// A folder as a Windows tool writes it (the name should end in `/`): made on MS-DOS, the folder attribute.
    public static func windowsDirectory(_ name: String) -> Entry {
        var entry = Entry(name: Array(name.utf8), data: [], mode: 0)
        entry.host = 0
        entry.dosAttributes = 0x10
        return entry
    }

    /// A directory entry (the name should end in `/`).
    public static func directory(_ name: String, mode: UInt32 = 0o755) -> Entry {
        Entry(name: Array(name.utf8), data: [], mode: 0o040000 | mode)
    }

    /// A symbolic link whose data is `target` (mode 0120777, as Info-ZIP writes them).
    public static func symlink(_ name: String, to target: String) -> Entry {
        Entry(name: Array(name.utf8), data: Array(target.utf8), mode: 0o120777)
    }

    // MARK: - Bytes

    /// Where the records of the last ``bytes`` call landed.
    public struct Layout: Sendable {
        public var localOffsets: [Int] = []
        public var dataOffsets: [Int] = []
        public var centralOffsets: [Int] = []
        public var directoryOffset = 0
        public var endOffset = 0
    }

    /// The archive's bytes.
    public var bytes: [UInt8] { build().bytes }

    /// The archive's bytes and where each record is.
    public func build() -> (bytes: [UInt8], layout: Layout) {
        var out: [UInt8] = []
        var layout = Layout()
        for entry in entries {
            layout.localOffsets.append(out.count)
            let crc = entry.localCRC32 ?? entry.crc32 ?? CRC32.checksum(entry.data)
            let size = UInt32(entry.data.count)
            let name = entry.localName ?? entry.name
            out.le(0x0403_4b50 as UInt32)
            out.le(20 as UInt16)
            out.le(entry.flags)
            out.le(entry.method)
            out.le(0 as UInt16)          // time
            out.le(0x21 as UInt16)       // date: 1980-01-01
            out.le(crc)
            out.le(entry.compressedSize ?? size)
            out.le(entry.localUncompressedSize ?? entry.uncompressedSize ?? size)
            out.le(UInt16(name.count))
            out.le(0 as UInt16)          // extra
            out += name
            layout.dataOffsets.append(out.count)
            out += entry.data
        }
        layout.directoryOffset = out.count
        for (index, entry) in entries.enumerated() {
            layout.centralOffsets.append(out.count)
            let size = UInt32(entry.data.count)
            out.le(0x0201_4b50 as UInt32)
            out.le(UInt16(entry.host) << 8 | 30)  // made by: the host, 3.0
            out.le(20 as UInt16)
            out.le(entry.flags)
            out.le(entry.method)
            out.le(0 as UInt16)
            out.le(0x21 as UInt16)
            out.le(entry.crc32 ?? CRC32.checksum(entry.data))
            out.le(entry.compressedSize ?? size)
            out.le(entry.uncompressedSize ?? size)
            out.le(UInt16(entry.name.count))
            out.le(0 as UInt16)          // extra
            out.le(0 as UInt16)          // comment
            out.le(entry.diskNumberStart)
            out.le(0 as UInt16)          // internal attributes
            out.le(entry.mode << 16 | UInt32(entry.dosAttributes))
            out.le(entry.localHeaderOffset ?? UInt32(layout.localOffsets[index]))
            out += entry.name
        }
        layout.endOffset = out.count
        out.le(0x0605_4b50 as UInt32)
        out.le(0 as UInt16)
        out.le(0 as UInt16)
        out.le(UInt16(entries.count))
        out.le(UInt16(entries.count))
        out.le(UInt32(layout.endOffset - layout.directoryOffset))
        out.le(UInt32(layout.directoryOffset))
        out.le(UInt16(comment.count))
        out += comment
        return (out, layout)
    }

    /// Writes the archive to `path`, creating the parent folder.
    public func write(to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The CRC-32 of `bytes` (zlib's), for comparing large trees cheaply.
    public static func crc32(of bytes: [UInt8]) -> UInt32 { CRC32.checksum(bytes) }

    /// Raw deflate data for `bytes`, taken from an archive the library's writer made.
    public static func deflate(_ bytes: [UInt8]) throws -> [UInt8] {
        let folder = try TemporaryDirectory("rawzip")
        let path = folder.file("d.zip")
        let writer = try ZipWriter(path: path)
        try writer.addFile("d", contents: bytes, method: .deflate, level: 9)
        try writer.finish(sync: false)
        let archive = try ZipArchive(path: path)
        let range = try archive.dataRange(of: archive.entries[0])
        let all = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return Array(all[Int(range.lowerBound)..<Int(range.upperBound)])
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` little-endian.
    fileprivate mutating func le<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        for index in 0..<MemoryLayout<T>.size { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }
}
