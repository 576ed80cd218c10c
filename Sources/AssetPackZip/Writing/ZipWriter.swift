import AssetPackSystem

/// Writes a zip archive front to back (APPNOTE 4.3.6): stored or deflated entries with CRC-32 and sizes in
/// the local header (the header is patched once the data is written, so no data descriptor is ever used),
/// UTF-8 names (bit 11), Unix modes, and Zip64 records switched on automatically past 4 GiB or 65,535 entries.
///
/// ```swift
/// let writer = try ZipWriter(path: "out.zip", options: .deterministic())
/// try writer.addDirectory("docs/")
/// try writer.addFile("docs/a.txt", contents: Array("hello".utf8))
/// try writer.finish()
/// ```
public final class ZipWriter {
    /// The options given at creation.
    public let options: ZipWriterOptions
    /// Internal for the entry kinds added in extensions (`ZipWriter+Precompressed.swift`).
    let output: any ZipOutput
    /// The central records written so far, encoded (a million entries take about 80 MB: not kept in memory).
    private let central: SpoolFile
    private var centralCount = 0
    private var names = EntryNames()
    private var finished = false
    private var deflater: Deflater?
    private let chunk: UnsafeMutableRawBufferPointer
    private let compressed: UnsafeMutableRawBufferPointer

    /// Creates (or truncates) the archive file at `path`.
    public convenience init(path: String, options: ZipWriterOptions = ZipWriterOptions()) throws(ZipError) {
        try self.init(output: try OutputFile(creating: path), options: options)
    }

    /// Writes to an open, seekable descriptor from its current end; the descriptor is not closed.
    public convenience init(descriptor: Int32, name: String, options: ZipWriterOptions = ZipWriterOptions()) throws(ZipError) {
        let file = FileDescriptor(rawValue: descriptor)
        let start = try io(file.currentOffset(path: name))
        try self.init(output: OutputFile(descriptor: file, path: name, startOffset: start, ownsDescriptor: false),
                      options: options)
    }

    /// Writes to `output` from its current position (a file, or bytes kept in memory by a test).
    package init(output: any ZipOutput, options: ZipWriterOptions = ZipWriterOptions()) throws(ZipError) {
        guard (0...9).contains(options.level) else {
            throw ZipError(.invalidArgument, "deflate level \(options.level) is not 0–9", archive: output.path)
        }
        guard LocalHeaderLayout.isValidAlignment(options.storedAlignment) else {
            throw ZipError(.invalidArgument, "stored alignment \(options.storedAlignment) is not 0, 1 or a power of two up to 32,768",
                           archive: output.path)
        }
        self.output = output
        self.options = options
        self.central = SpoolFile(beside: output.path)
        self.chunk = .allocate(byteCount: 256 * 1024, alignment: 16)
        self.compressed = .allocate(byteCount: 256 * 1024, alignment: 16)
    }

    deinit {
        chunk.deallocate()
        compressed.deallocate()
    }

    /// The archive's path (for messages).
    public var path: String { output.path }

    /// Number of entries written so far.
    public var entryCount: Int { centralCount }

    /// Adds a directory entry; a trailing `/` is added when missing.
    public func addDirectory(_ name: String, permissions: UInt32 = 0o755, modified: Int64? = nil) throws(ZipError) {
        let directoryName = name.hasSuffix("/") ? name : name + "/"
        let spec = EntrySpec(name: directoryName, method: .stored, mode: 0o040000 | normalized(permissions, directory: true),
                             modified: modified, dosDirectory: true, level: 0)
        _ = try write(spec, sizeHint: 0, from: nil)
    }

    /// Adds a file from memory.
    @discardableResult
    public func addFile(_ name: String, contents: [UInt8], method: CompressionMethod = .deflate, level: Int? = nil,
                        permissions: UInt32 = 0o644, modified: Int64? = nil) throws(ZipError) -> WrittenEntry {
        try addFile(name, from: MemoryStream(contents), size: UInt64(contents.count), method: method, level: level,
                    permissions: permissions, modified: modified)
    }

    /// Adds a file read from `stream`. `size`, when known, lets the writer choose the Zip64 layout up
    /// front, and the stream must then deliver exactly that many bytes; when nil the local header reserves
    /// room and is patched afterwards.
    /// - Throws: ``ZipError`` naming the entry: `.invalidArgument` for a duplicate or empty name, a bad
    ///   level, or a stream that delivers another size than `size`; `.io` when writing fails.
    @discardableResult
    public func addFile(_ name: String, from stream: any ByteStream, size: UInt64?, method: CompressionMethod = .deflate,
                        level: Int? = nil, permissions: UInt32 = 0o644, modified: Int64? = nil) throws(ZipError) -> WrittenEntry {
        let spec = EntrySpec(name: name, method: method, mode: 0o100000 | normalized(permissions, directory: false),
                             modified: modified, dosDirectory: false, level: level ?? options.level)
        return try write(spec, sizeHint: size, from: stream)
    }

    /// Adds a symbolic link whose data is `target` (mode 0120777, as Info-ZIP writes them).
    public func addSymlink(_ name: String, target: String, modified: Int64? = nil) throws(ZipError) {
        let spec = EntrySpec(name: name, method: .stored, mode: 0o120777, modified: modified, dosDirectory: false, level: 0)
        let bytes = Array(target.utf8)
        _ = try write(spec, sizeHint: UInt64(bytes.count), from: MemoryStream(bytes))
    }

    /// Writes the central directory and end records, flushes, and syncs the file. The writer cannot be used after.
    public func finish(comment: String = "", sync: Bool = true) throws(ZipError) {
        try checkOpen()
        let commentBytes = Array(comment.utf8)
        guard commentBytes.count <= Int(FormatLimit.max16) else {
            throw ZipError(.invalidArgument, "archive comment is longer than 65,535 bytes", archive: path)
        }
        finished = true
        let directoryStart = output.position
        while true {
            let count = try central.read(into: chunk)
            if count == 0 { break }
            try output.write(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
        }
        let directorySize = output.position - directoryStart
        var tail = ByteWriter(capacity: 128)
        EndRecords(entryCount: UInt64(centralCount), directoryOffset: directoryStart, directorySize: directorySize,
                   endOffset: output.position, comment: commentBytes).encode(into: &tail)
        try output.write(tail.bytes)
        if sync { try output.sync() } else { try output.flush() }
    }

    // MARK: - Writing one entry

    struct EntrySpec {
        var name: String
        var method: CompressionMethod
        var mode: UInt32
        var modified: Int64?
        var dosDirectory: Bool
        var level: Int
    }

    private func checkOpen() throws(ZipError) {
        guard !finished else { throw ZipError(.invalidArgument, "the archive is already finished", archive: path) }
    }

    func normalized(_ permissions: UInt32, directory: Bool) -> UInt32 {
        guard options.fixedTime != nil else { return permissions & 0o7777 }
        return directory || permissions & 0o100 != 0 ? 0o755 : 0o644
    }

    private func write(_ spec: EntrySpec, sizeHint: UInt64?, from stream: (any ByteStream)?) throws(ZipError) -> WrittenEntry {
        try write(spec, sizeHint: sizeHint) { () throws(ZipError) -> (UInt32, UInt64) in
            try copyData(from: stream, method: spec.method, level: spec.level, entry: spec.name)
        }
    }

    /// Writes one entry: the local header, then the data that `data` writes into ``output`` (returning its
    /// CRC-32 and uncompressed size), then the patched header and the central record.
    func write(_ spec: EntrySpec, sizeHint: UInt64?,
               data: () throws(ZipError) -> (crc: UInt32, size: UInt64)) throws(ZipError) -> WrittenEntry {
        try checkOpen()
        let nameBytes = Array(spec.name.utf8)
        guard !nameBytes.isEmpty, nameBytes.count <= Int(FormatLimit.max16) else {
            throw ZipError(.invalidArgument, "entry name must be 1 to 65,535 bytes", archive: path, entry: spec.name)
        }
        guard spec.method.isSupported else {
            throw ZipError(.unsupportedMethod, "cannot write method \(spec.method)", archive: path, entry: spec.name)
        }
        guard names.insert(spec.name) else {
            throw ZipError(.invalidArgument, "an entry with this name was already written", archive: path, entry: spec.name)
        }
        let layout = LocalHeaderLayout(sizeHint: sizeHint, method: spec.method,
                                       alignment: spec.method == .stored ? options.storedAlignment : 0,
                                       headerOffset: output.position, nameLength: nameBytes.count)
        let time = DOSDateTime(unixTime: options.fixedTime ?? spec.modified ?? SystemClock.unixTime())
        let fields = EntryFields(
            versionNeeded: layout.zip64 ? 45 : 20, flags: nameBytes.contains { $0 >= 0x80 } ? GeneralPurposeFlag.utf8 : 0,
            method: spec.method.rawValue, dosTime: time.time, dosDate: time.date, crc32: 0, compressedSize: 0,
            uncompressedSize: 0)
        var header = LocalFileHeader(fields: fields, name: nameBytes, extra: layout.placeholderExtra)
        let headerOffset = output.position
        var encoded = ByteWriter(capacity: header.encodedSize)
        header.encode(into: &encoded)
        try output.write(encoded.bytes)
        let dataOffset = output.position
        let (crc, size) = try data()
        let compressedSize = output.position - dataOffset
        try checkSizes(uncompressed: size, compressed: compressedSize, hint: sizeHint, layout: layout, entry: spec.name)
        // Patch the local header now that CRC and sizes are known.
        header.crc32 = crc
        header.extra = layout.finalExtra(uncompressed: size, compressed: compressedSize)
        let zip64Local = header.extra.count >= 20 && ExtraField.find(ExtraFieldID.zip64, in: header.extra) != nil
        header.uncompressedSize = zip64Local ? FormatLimit.max32 : UInt32(size)
        header.compressedSize = zip64Local ? FormatLimit.max32 : UInt32(compressedSize)
        header.versionNeeded = zip64Local ? 45 : (spec.method == .deflate || spec.dosDirectory ? 20 : 10)
        var patched = ByteWriter(capacity: header.encodedSize)
        header.encode(into: &patched)
        try output.patch(patched.bytes, at: headerOffset)
        let record = CentralRecordBuilder.record(for: header, mode: spec.mode, dosDirectory: spec.dosDirectory,
                                                 uncompressed: size, compressed: compressedSize, offset: headerOffset)
        var recordBytes = ByteWriter(capacity: record.encodedSize)
        record.encode(into: &recordBytes)
        try central.append(recordBytes.bytes)
        centralCount += 1
        return WrittenEntry(name: spec.name, method: spec.method, crc32: crc, uncompressedSize: size,
                            compressedSize: compressedSize, localHeaderOffset: headerOffset, dataOffset: dataOffset)
    }

    /// The stream must deliver the size the caller announced (it chose the header layout), and the sizes
    /// must fit that layout; otherwise the entry is refused rather than written with wrong headers.
    private func checkSizes(uncompressed: UInt64, compressed: UInt64, hint: UInt64?, layout: LocalHeaderLayout,
                            entry: String) throws(ZipError) {
        if let hint, hint != uncompressed {
            throw ZipError(.invalidArgument, "the stream delivered \(uncompressed) bytes, but its size was given as \(hint)",
                           archive: path, entry: entry)
        }
        guard layout.canHold(uncompressed: uncompressed, compressed: compressed) else {
            throw ZipError(.invalidArgument, "\(compressed) bytes of data do not fit the local header chosen for \(hint ?? 0)",
                           archive: path, entry: entry)
        }
    }

    /// Streams the data through the compressor into the file; returns CRC-32 and uncompressed size.
    private func copyData(from stream: (any ByteStream)?, method: CompressionMethod, level: Int,
                          entry: String) throws(ZipError) -> (UInt32, UInt64) {
        guard let stream else { return (0, 0) }
        var crc = CRC32()
        var size: UInt64 = 0
        let compressor = method == .deflate ? try deflater(level: level) : nil
        do {
            while true {
                let count = try stream.read(into: chunk)
                let input = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
                crc.update(input)
                size += UInt64(count)
                if let compressor {
                    try deflate(input, with: compressor, finish: count == 0)
                } else {
                    try output.write(input)
                }
                if count == 0 { break }
            }
        } catch {
            throw error.inArchive(path).forEntry(entry)
        }
        return (crc.value, size)
    }

    private func deflater(level: Int) throws(ZipError) -> Deflater {
        if let deflater, currentLevel == level {
            deflater.reset()
            return deflater
        }
        let fresh = try Deflater(level: level)
        deflater = fresh
        currentLevel = level
        return fresh
    }
    private var currentLevel = -1

    private func deflate(_ input: UnsafeRawBufferPointer, with compressor: Deflater, finish: Bool) throws(ZipError) {
        var consumed = 0
        while true {
            let step = try compressor.deflate(UnsafeRawBufferPointer(rebasing: input[consumed...]), into: compressed,
                                              flush: finish ? .finish : .none)
            consumed += step.consumed
            if step.produced > 0 { try output.write(UnsafeRawBufferPointer(rebasing: compressed[0..<step.produced])) }
            if finish ? step.finished : (consumed == input.count && step.produced < compressed.count) { return }
        }
    }
}
