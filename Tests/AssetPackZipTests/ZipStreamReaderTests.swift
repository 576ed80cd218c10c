import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

// Tests of the forward-only ZipStreamReader: archives made at test time by Info-ZIP (streamed to a pipe and
// written to a file), Python's zipfile (streamed to a pipe, with and without Zip64), jar, and ZipWriter, read
// through non-seekable streams; then damaged archives. Helpers here are private and prefixed `stream` so
// they cannot collide with the other zip test files.

// MARK: - Fixture and helpers

/// The files every interop archive here is made from: compressible text larger than the read buffer,
/// incompressible bytes, a long run of zeros, an empty file, nesting and a non-ASCII name. Seeded.
private enum StreamFixture {
    static let files: [String: [UInt8]] = {
        var random = SeededRandom(seed: 0x5742_ea4d)
        return [
            "text.txt": random.text(150_000),
            "random.bin": random.bytes(70_000),
            "zeros.bin": [UInt8](repeating: 0, count: 300_000),
            "empty.txt": [],
            "dir/one.bin": random.bytes(1),
            "dir/sub/nested.txt": random.text(2_000),
            "データ/木.txt": random.text(500),
        ]
    }()

    /// The fixture's paths, sorted (the order the tools are given them in).
    static var paths: [String] { files.keys.sorted() }

    /// Writes the files under `directory/src`; returns that folder.
    static func write(in directory: TemporaryDirectory) throws -> String {
        for (path, bytes) in files { try directory.write("src/\(path)", bytes) }
        return directory.file("src")
    }
}

/// One entry as read forward: what `nextEntry()` returned, what `currentEntry` said at the end, the data.
private struct StreamedEntry {
    var entry: ZipStreamEntry
    var verified: ZipStreamEntry
    var bytes: [UInt8]
}

/// Reads every entry of `stream` in `chunk`-sized reads. Fails the test if an entry needs more read calls
/// than it has bytes (a reader that returns 0-byte reads forever would otherwise hang the loop).
private func streamReadAll(_ stream: any ByteStream, limits: ZipLimits = .unlimited, chunk: Int = 16 * 1024,
                           bufferSize: Int = 64 * 1024) throws(ZipError) -> [StreamedEntry] {
    let reader = ZipStreamReader(stream, name: "test.zip", limits: limits, bufferSize: bufferSize)
    var result: [StreamedEntry] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    while let entry = try reader.nextEntry() {
        var bytes: [UInt8] = []
        var calls = 0
        while true {
            let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            calls += 1
            if calls > bytes.count + 1 { Issue.record("reader of \(entry.name) is not making progress"); break }
        }
        #expect(reader.currentEntry != nil, "currentEntry is set until the next entry")
        result.append(StreamedEntry(entry: entry, verified: reader.currentEntry ?? entry, bytes: bytes))
    }
    #expect(try reader.nextEntry() == nil, "nextEntry keeps returning nil at the end")
    return result
}

/// The error reading all of `bytes` forward throws, or nil.
private func streamError(_ bytes: [UInt8], limits: ZipLimits = .unlimited, chunk: Int = 16 * 1024) -> ZipError? {
    do {
        _ = try streamReadAll(MemoryStream(bytes), limits: limits, chunk: chunk)
        return nil
    } catch {
        return error
    }
}

/// A stream that hands out at most a few bytes per read (1 to 7, seeded), to exercise every refill path.
private final class TrickleStream: ByteStream {
    private let bytes: [UInt8]
    private var position = 0
    private var random = SeededRandom(seed: 7)

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        let count = min(buffer.count, bytes.count - position, Int(random.next() % 7) + 1)
        guard count > 0 else { return 0 }
        for index in 0..<count { buffer[index] = bytes[position + index] }
        position += count
        return count
    }
}

/// Runs `script` with `/bin/sh -c` in `cwd` and reads its standard output — a pipe — forward while the
/// tool is still writing it. The rest of the pipe is drained afterwards so the tool can exit normally.
private func streamFromCommand(_ script: String, in cwd: String,
                               sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<[StreamedEntry], ZipError> {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    process.currentDirectoryURL = URL(fileURLWithPath: cwd)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let stream = FileDescriptorStream(descriptor: pipe.fileHandleForReading.fileDescriptor, name: "pipe")
    let result = Result { () throws(ZipError) -> [StreamedEntry] in try streamReadAll(stream) }
    _ = try stream.readAll()
    try pipe.fileHandleForReading.close()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "`\(script)` failed", sourceLocation: sourceLocation)
    return result
}

/// Python writing the fixture with zipfile to `output` ("-" for standard output, which is then a pipe).
/// `method` is "stored" or "deflate"; `zip64` forces Zip64 headers.
private func streamPythonScript(output: String, method: String, zip64: Bool) -> String {
    let program = """
    import sys, zipfile
    out = sys.stdout.buffer if sys.argv[1] == "-" else open(sys.argv[1], "wb")
    method = zipfile.ZIP_STORED if sys.argv[2] == "stored" else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(out, "w", method) as archive:
        for name in sys.argv[4:]:
            with open(name, "rb") as source, archive.open(name, "w", force_zip64=sys.argv[3] == "zip64") as target:
                target.write(source.read())
    """
    let names = StreamFixture.paths.map { "'\($0)'" }.joined(separator: " ")
    return "python3 -c '\(program.replacingOccurrences(of: "'", with: "'\\''"))' \(output) \(method) \(zip64 ? "zip64" : "plain") \(names)"
}

/// Expects exactly the fixture's files (plus `extraFiles`) with exactly their bytes, empty directories, and
/// verified CRC-32 and sizes on every entry.
private func expectFixture(_ entries: [StreamedEntry], extraFiles: Set<String> = [],
                           sourceLocation: SourceLocation = #_sourceLocation) {
    let files = entries.filter { $0.entry.kind == .file }
    #expect(Set(files.map(\.entry.name)) == Set(StreamFixture.paths).union(extraFiles), sourceLocation: sourceLocation)
    for item in files {
        if let expected = StreamFixture.files[item.entry.name] {
            #expect(item.bytes == expected, "bytes of \(item.entry.name)", sourceLocation: sourceLocation)
        }
    }
    for item in entries {
        if item.entry.kind == .directory { #expect(item.bytes.isEmpty, sourceLocation: sourceLocation) }
        #expect(item.verified.crc32 == CRC32.checksum(item.bytes), "CRC of \(item.entry.name)", sourceLocation: sourceLocation)
        #expect(item.verified.uncompressedSize == UInt64(item.bytes.count), sourceLocation: sourceLocation)
        #expect(item.verified.compressedSize != nil, sourceLocation: sourceLocation)
    }
}

/// Where an entry's data starts and ends in `bytes`, found through the central directory.
private func streamDataRange(of name: String, in bytes: [UInt8]) throws -> Range<Int> {
    let archive = try ZipArchive(source: MemorySource(bytes))
    let entry = try archive.requireEntry(named: name)
    let header = Int(entry.localHeaderOffset)
    var cursor = ByteCursor(bytes, position: header + 26)
    let lengths = (cursor.read(UInt16.self), cursor.read(UInt16.self))
    let nameLength = try #require(lengths.0), extraLength = try #require(lengths.1)
    let start = header + FormatLimit.localHeaderSize + Int(nameLength) + Int(extraLength)
    return start..<start + Int(entry.compressedSize)
}

/// An archive made by ZipWriter in memory (through a temporary file).
private func streamWriterArchive(_ body: (ZipWriter) throws -> Void) throws -> [UInt8] {
    let directory = try TemporaryDirectory("stream")
    let path = directory.file("w.zip")
    let writer = try ZipWriter(path: path, options: .deterministic())
    try body(writer)
    try writer.finish(sync: false)
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
}

/// A small archive whose entries all end with signed 32-bit data descriptors (Python streaming to a pipe).
private func streamSmallDescriptorArchive() throws -> [UInt8] {
    try ExternalTool.python3.require()
    let program = """
    import sys, zipfile
    with zipfile.ZipFile(sys.stdout.buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.txt", b"hello hello hello hello " * 20)
        archive.writestr("b.txt", bytes(range(256)) * 2)
        archive.writestr("c/", b"")
        archive.writestr("c/d.txt", b"the end")
    """
    let result = try run("python3", ["-c", program])
    try #require(result.status == 0, "python failed: \(result.stderr)")
    return result.stdoutBytes
}

// MARK: - Archives from real tools

@Test func zipStreamReaderReadsInfoZipStreamedToAPipe() throws {
    try ExternalTool.zip.require()
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    let entries = try streamFromCommand("zip -q -r - .", in: source).get()
    expectFixture(entries)
    #expect(Set(entries.filter { $0.entry.kind == .directory }.map(\.entry.name)) == ["dir/", "dir/sub/", "データ/"])
    let text = try #require(entries.first { $0.entry.name == "text.txt" })
    #expect(text.entry.hasDataDescriptor && text.entry.method == .deflate && text.entry.crc32 == nil)
    // Info-ZIP streams an empty file as a stored entry with an (all-zero) data descriptor.
    let empty = try #require(entries.first { $0.entry.name == "empty.txt" })
    #expect(empty.entry.hasDataDescriptor && empty.entry.method == .stored)
}

@Test func zipStreamReaderReadsInfoZipFilesWithSizesInTheHeader() throws {
    try ExternalTool.zip.require()
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    for flags in ["-q -r", "-q -r -0", "-q -r -9"] {
        let archive = directory.file("out\(flags.count).zip")
        try #require(try run("/bin/sh", ["-c", "zip \(flags) '\(archive)' ."], cwd: source).status == 0)
        let entries = try streamReadAll(FileDescriptorStream(path: archive))
        expectFixture(entries)
        #expect(entries.allSatisfy { !$0.entry.hasDataDescriptor && $0.entry.crc32 != nil })
        if flags.hasSuffix("-0") { #expect(entries.allSatisfy { $0.entry.method == .stored }) }
    }
}

@Test func zipStreamReaderReadsPythonStreamedToAPipe() throws {
    try ExternalTool.python3.require()
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    for zip64 in [false, true] {
        let entries = try streamFromCommand(streamPythonScript(output: "-", method: "deflate", zip64: zip64), in: source).get()
        expectFixture(entries)
        #expect(entries.allSatisfy { $0.entry.hasDataDescriptor && $0.entry.hasZip64Field == zip64 })
    }
}

@Test func zipStreamReaderReadsPythonZip64HeadersWithSizes() throws {
    try ExternalTool.python3.require()
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    for method in ["deflate", "stored"] {
        let archive = directory.file("py-\(method).zip")
        let result = try run("/bin/sh", ["-c", streamPythonScript(output: "'\(archive)'", method: method, zip64: true)], cwd: source)
        try #require(result.status == 0, "python failed: \(result.stderr)")
        let entries = try streamReadAll(FileDescriptorStream(path: archive))
        expectFixture(entries)
        #expect(entries.allSatisfy { $0.entry.hasZip64Field && !$0.entry.hasDataDescriptor && $0.entry.uncompressedSize != nil })
    }
}

@Test func zipStreamReaderReadsJar() throws {
    try ExternalTool.jar.require()
    let directory = try TemporaryDirectory("stream")
    _ = try StreamFixture.write(in: directory)
    let jar = directory.file("out.jar")
    let result = try run("jar", ["cf", jar, "-C", directory.file("src"), "."])
    try #require(result.status == 0, "jar failed: \(result.stderr)")
    let entries = try streamReadAll(FileDescriptorStream(path: jar))
    expectFixture(entries, extraFiles: ["META-INF/MANIFEST.MF"])
    let text = try #require(entries.first { $0.entry.name == "text.txt" })
    #expect(text.entry.hasDataDescriptor && text.entry.method == .deflate)
}

@Test func zipStreamReaderReadsZipWriterArchives() throws {
    let bytes = try streamWriterArchive { writer in
        try writer.addDirectory("dir")
        for path in StreamFixture.paths {
            try writer.addFile(path, contents: StreamFixture.files[path]!, method: path.hasSuffix(".bin") ? .stored : .deflate)
        }
        try writer.addFile("unsized.txt", from: MemoryStream(StreamFixture.files["text.txt"]!), size: nil)
    }
    for (chunk, bufferSize) in [(16 * 1024, 64 * 1024), (1, 4096), (100_000, 1)] {
        let entries = try streamReadAll(MemoryStream(bytes), chunk: chunk, bufferSize: bufferSize)
        expectFixture(entries, extraFiles: ["unsized.txt"])
        #expect(entries.last?.bytes == StreamFixture.files["text.txt"])
    }
    expectFixture(try streamReadAll(TrickleStream(bytes)), extraFiles: ["unsized.txt"])
}

@Test func zipStreamReaderSurvivesShortReadsOnEveryToolsArchive() throws {
    try ExternalTool.zip.require()
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    for script in ["zip -q -r - . | cat", streamPythonScript(output: "-", method: "deflate", zip64: true) + " | cat"] {
        let result = try run("/bin/sh", ["-c", script], cwd: source)
        try #require(result.status == 0, "`\(script)` failed: \(result.stderr)")
        expectFixture(try streamReadAll(TrickleStream(result.stdoutBytes), chunk: 3, bufferSize: 4096))
    }
}

// MARK: - Reading and skipping

@Test func zipStreamReaderSkipsUnreadAndPartlyReadEntries() throws {
    try ExternalTool.python3.require()
    let bytes = try streamFromCommandBytes(streamPythonScript(output: "-", method: "deflate", zip64: false))
    let reader = ZipStreamReader(MemoryStream(bytes), name: "skip.zip")
    var names: [String] = []
    var buffer = [UInt8](repeating: 0, count: 10)
    while let entry = try reader.nextEntry() {
        names.append(entry.name)
        switch entry.name {
        case "text.txt":
            let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
            #expect(Array(buffer[0..<count]) == Array(StreamFixture.files["text.txt"]!.prefix(count)))
        case "dir/sub/nested.txt":
            #expect(try reader.readAll() == StreamFixture.files[entry.name])
            #expect(reader.currentEntry?.uncompressedSize == 2_000)
        default:
            break  // not read at all
        }
    }
    #expect(names == StreamFixture.paths)
    #expect(reader.entryCount == StreamFixture.paths.count)
    #expect(try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) } == 0)
}

/// The fixture streamed by Python through `cat`, as bytes.
private func streamFromCommandBytes(_ script: String) throws -> [UInt8] {
    let directory = try TemporaryDirectory("stream")
    let source = try StreamFixture.write(in: directory)
    let result = try run("/bin/sh", ["-c", script + " | cat"], cwd: source)
    try #require(result.status == 0, "`\(script)` failed: \(result.stderr)")
    return result.stdoutBytes
}

@Test func zipStreamReaderVerifiesEntriesItSkips() throws {
    var bytes = try streamSmallDescriptorArchive()
    let data = try streamDataRange(of: "a.txt", in: bytes)
    bytes[data.upperBound + 4] ^= 0x01  // the CRC in a.txt's descriptor
    let reader = ZipStreamReader(MemoryStream(bytes), name: "skip.zip")
    #expect(try reader.nextEntry()?.name == "a.txt")
    let first = #expect(throws: ZipError.self) { try reader.nextEntry() }
    #expect(first?.code == .checksum && first?.entry == "a.txt")
    // A spent reader repeats its error.
    let again = #expect(throws: ZipError.self) { try reader.nextEntry() }
    #expect(again == first)
}

@Test func zipStreamReaderStopsAtTheCentralDirectory() throws {
    let bytes = try streamWriterArchive { writer in try writer.addFile("a.txt", contents: Array("a".utf8)) }
    let reader = ZipStreamReader(MemoryStream(bytes + Array("trailing junk that is never read".utf8)), name: "a.zip")
    #expect(try reader.nextEntry()?.name == "a.txt")
    #expect(try reader.nextEntry() == nil)
    #expect(try reader.nextEntry() == nil)
    #expect(reader.currentEntry == nil)
    let empty = try streamWriterArchive { _ in }
    #expect(empty.count == FormatLimit.endRecordSize)
    #expect(try streamReadAll(MemoryStream(empty)).isEmpty)
}

@Test func zipStreamReaderReportsEntryMetadata() throws {
    let bytes = try streamWriterArchive { writer in
        try writer.addDirectory("docs")
        try writer.addFile("docs/日本語.txt", contents: Array("こんにちは".utf8), method: .stored)
    }
    let entries = try streamReadAll(MemoryStream(bytes))
    #expect(entries.map(\.entry.name) == ["docs/", "docs/日本語.txt"])
    #expect(entries.map(\.entry.kind) == [.directory, .file])
    let file = entries[1].entry
    #expect(file.rawName == Array("docs/日本語.txt".utf8))
    #expect(file.method == .stored && file.crc32 == CRC32.checksum(Array("こんにちは".utf8)))
    #expect(file.compressedSize == 15 && file.uncompressedSize == 15)
    #expect(file.modified.unixTime == ZipWriterOptions.deterministic().fixedTime)
    #expect(file.localHeaderOffset == UInt64(FormatLimit.localHeaderSize + "docs/".utf8.count))
    #expect(entries[1].bytes == Array("こんにちは".utf8))
}

// MARK: - Archives that cannot be read forward

@Test func zipStreamReaderRejectsStoredEntriesWithDataDescriptors() throws {
    try ExternalTool.python3.require()
    let bytes = try streamFromCommandBytes(streamPythonScript(output: "-", method: "stored", zip64: false))
    let error = try #require(streamError(bytes))
    #expect(error.code == .needsRandomAccess)
    #expect(error.entry == StreamFixture.paths.first { !StreamFixture.files[$0]!.isEmpty })
    #expect(error.archive == "test.zip")
    #expect(error.description.contains("ZipArchive"))
    // The same bytes read fine with random access.
    let archive = try ZipArchive(source: MemorySource(bytes))
    #expect(try archive.contents(of: archive.requireEntry(named: "text.txt")) == StreamFixture.files["text.txt"])
}

@Test func zipStreamReaderRejectsEncryptedAndUnsupportedEntries() throws {
    try ExternalTool.zip.require()
    let directory = try TemporaryDirectory("stream")
    try directory.write("a.txt", text: String(repeating: "secret ", count: 100))
    let encrypted = try run("/bin/sh", ["-c", "zip -q -P pass - a.txt | cat"], cwd: directory.path)
    let encryptedError = try #require(streamError(encrypted.stdoutBytes))
    #expect(encryptedError.code == .encrypted && encryptedError.entry == "a.txt")
    let bzip2 = try run("/bin/sh", ["-c", "zip -q -Z bzip2 b.zip a.txt && cat b.zip"], cwd: directory.path)
    let bzip2Error = try #require(streamError(bzip2.stdoutBytes))
    #expect(bzip2Error.code == .unsupportedMethod && bzip2Error.entry == "a.txt")
    #expect(bzip2Error.message.contains("bzip2 (12)"))
}

// MARK: - Damaged archives

@Test func zipStreamReaderReportsTruncationAtEveryCut() throws {
    let bytes = try streamSmallDescriptorArchive()
    let directoryStart = Int(try ZipArchive(source: MemorySource(bytes)).centralDirectoryOffset)
    for cut in 0..<directoryStart {
        let error = streamError(Array(bytes[0..<cut]), chunk: 7)
        #expect(error?.code == .truncated, "cut at \(cut): \(String(describing: error))")
    }
    let stored = try streamWriterArchive { writer in
        try writer.addFile("s.bin", contents: [UInt8](repeating: 9, count: 300), method: .stored)
        try writer.addFile("d.txt", contents: Array(String(repeating: "deflate ", count: 50).utf8))
    }
    let storedEnd = Int(try ZipArchive(source: MemorySource(stored)).centralDirectoryOffset)
    for cut in 0..<storedEnd {
        #expect(streamError(Array(stored[0..<cut]))?.code == .truncated, "cut at \(cut)")
    }
}

@Test func zipStreamReaderReportsDamagedDeflateData() throws {
    let text = Array(String(repeating: "a line of text that deflates well; ", count: 400).utf8)
    let sized = try streamWriterArchive { writer in try writer.addFile("t.txt", contents: text) }
    let descriptor = try streamSmallDescriptorArchive()
    for (bytes, name) in [(sized, "t.txt"), (descriptor, "a.txt"), (descriptor, "b.txt")] {
        let data = try streamDataRange(of: name, in: bytes)
        for position in [data.lowerBound, data.lowerBound + data.count / 2] {
            var damaged = bytes
            damaged[position] ^= 0xFF
            let error = try #require(streamError(damaged), "flip at \(position) of \(name)")
            #expect([.corruptData, .checksum, .sizeMismatch].contains(error.code), "\(error)")
            #expect(error.entry == name)
        }
    }
}

@Test(.timeLimit(.minutes(2)))
func zipStreamReaderNeverHangsOrTrapsOnFlippedBytes() throws {
    let bytes = try streamSmallDescriptorArchive()
    let sized = try streamWriterArchive { writer in
        try writer.addFile("a.txt", contents: Array(String(repeating: "flip me ", count: 40).utf8))
        try writer.addFile("b.bin", contents: [1, 2, 3], method: .stored)
    }
    for archive in [bytes, sized] {
        for position in archive.indices {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = archive
                damaged[position] ^= mask
                _ = streamError(damaged, chunk: 5)  // any outcome but a hang or a trap
            }
        }
    }
}

@Test func zipStreamReaderChecksDescriptorValues() throws {
    let bytes = try streamSmallDescriptorArchive()
    let data = try streamDataRange(of: "b.txt", in: bytes)
    var badCRC = bytes
    badCRC[data.upperBound + 4] ^= 0x10
    let crcError = try #require(streamError(badCRC))
    #expect(crcError.code == .checksum && crcError.entry == "b.txt" && crcError.archive == "test.zip")
    var badSize = bytes
    badSize[data.upperBound + 12] ^= 0x01  // uncompressed size
    #expect(streamError(badSize)?.code == .sizeMismatch)
    var badCompressedSize = bytes
    badCompressedSize[data.upperBound + 8] ^= 0x01
    #expect(streamError(badCompressedSize)?.code == .sizeMismatch)
}

@Test func zipStreamReaderChecksLocalHeaderValues() throws {
    let text = Array(String(repeating: "header ", count: 300).utf8)
    let bytes = try streamWriterArchive { writer in
        try writer.addFile("t.txt", contents: text)
        try writer.addFile("s.bin", contents: [UInt8](repeating: 3, count: 100), method: .stored)
    }
    var badCRC = bytes
    badCRC[14] ^= 0x01  // local header fields: CRC-32 at 14, compressed size at 18, uncompressed at 22
    #expect(streamError(badCRC)?.code == .checksum)
    // Fewer bytes declared than the data holds: never more than declared comes out, then an error.
    var shorter = bytes
    shorter[22] &-= 10
    let reader = ZipStreamReader(MemoryStream(shorter), name: "short.zip")
    _ = try reader.nextEntry()
    var produced = 0
    let error = try #require(throws: ZipError.self) {
        var buffer = [UInt8](repeating: 0, count: 7)
        while true {
            let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
            if count == 0 { break }
            produced += count
        }
    }
    #expect(error.code == .sizeMismatch)
    #expect(produced <= text.count - 10)
    // A stored entry whose local sizes disagree.
    var stored = bytes
    let storedHeader = try streamDataRange(of: "t.txt", in: bytes).upperBound  // s.bin's header follows t.txt's data
    stored[storedHeader + 18] ^= 0x01
    #expect(streamError(stored)?.code == .sizeMismatch)
}

@Test func zipStreamReaderReadsDescriptorsWithoutSignatures() throws {
    let bytes = try streamSmallDescriptorArchive()
    let archive = try ZipArchive(source: MemorySource(bytes))
    var stripped = bytes
    for entry in archive.entries.reversed() where entry.hasDataDescriptor {
        let data = try streamDataRange(of: entry.name, in: bytes)
        #expect(Array(bytes[data.upperBound..<data.upperBound + 4]) == [0x50, 0x4b, 0x07, 0x08])
        stripped.removeSubrange(data.upperBound..<data.upperBound + 4)
    }
    let entries = try streamReadAll(MemoryStream(stripped))
    #expect(entries.map(\.entry.name) == ["a.txt", "b.txt", "c/", "c/d.txt"])
    #expect(entries[1].bytes == Array(0...255) + Array(0...255))
}

@Test func zipStreamReaderAppliesLimits() throws {
    let bytes = try streamSmallDescriptorArchive()
    let tooMany = try #require(streamError(bytes, limits: ZipLimits(maxEntries: 2)))
    #expect(tooMany.code == .limitExceeded)
    #expect(streamError(bytes, limits: ZipLimits(maxEntries: 4)) == nil)
    let zeros = try streamWriterArchive { writer in
        try writer.addFile("zeros.bin", contents: [UInt8](repeating: 0, count: 200_000))
    }
    let ratio = try #require(streamError(zeros, limits: ZipLimits(maxCompressionRatio: 10, ratioGraceSize: 1024)))
    #expect(ratio.code == .limitExceeded && ratio.entry == "zeros.bin")
    #expect(streamError(zeros, limits: .default) == nil)
    let total = try #require(streamError(zeros, limits: ZipLimits(maxTotalUncompressedSize: 100_000)))
    #expect(total.code == .limitExceeded)
}

// MARK: - Data descriptor layouts

@Test func dataDescriptorLayoutIsChosenByTheRecordThatFollows() {
    let values = DataDescriptor(crc32: 0x1234_5678, compressedSize: 100, uncompressedSize: 300)
    func encoded(_ layout: DataDescriptor.Layout, then next: UInt32?) -> [UInt8] {
        var writer = ByteWriter()
        if layout.signed { writer.write(Signature.dataDescriptor) }
        writer.write(values.crc32)
        if layout.wide { writer.write(values.compressedSize); writer.write(values.uncompressedSize) } else {
            writer.write(UInt32(values.compressedSize)); writer.write(UInt32(values.uncompressedSize))
        }
        if let next { writer.write(next) }
        writer.writeZeros(DataDescriptor.lookahead)
        return Array(writer.bytes.prefix(DataDescriptor.lookahead))
    }
    for signed in [true, false] {
        for wide in [true, false] {
            let layout = DataDescriptor.Layout(signed: signed, wide: wide)
            for zip64 in [true, false] {
                for next in [Signature.localFileHeader, Signature.centralDirectoryHeader] {
                    let found = DataDescriptor.find(in: encoded(layout, then: next), zip64: zip64, expecting: values)
                    #expect(found?.layout == layout && found?.descriptor == values, "\(layout) zip64: \(zip64)")
                }
            }
        }
    }
    // A wrong CRC still picks the layout a record follows, so the caller can report the mismatch.
    let wrong = DataDescriptor(crc32: 1, compressedSize: 100, uncompressedSize: 300)
    let found = DataDescriptor.find(in: encoded(.init(signed: true, wide: false), then: Signature.localFileHeader),
                                    zip64: true, expecting: wrong)
    #expect(found?.descriptor == values && found?.layout.length == 16)
    // Nothing recognizable follows: the most likely layout, when the lookahead is complete.
    let unknown = DataDescriptor.find(in: encoded(.init(signed: true, wide: true), then: nil), zip64: true, expecting: wrong)
    #expect(unknown?.layout == .init(signed: true, wide: true))
    // The stream ends inside the descriptor: truncated.
    #expect(DataDescriptor.find(in: Array(encoded(.init(signed: true, wide: false), then: nil).prefix(14)),
                                zip64: false, expecting: values) == nil)
    // The stream ends right after it, or inside the next record: truncated too (the central directory must follow).
    for length in [16, 19] {
        let cut = Array(encoded(.init(signed: true, wide: false), then: Signature.centralDirectoryHeader).prefix(length))
        #expect(DataDescriptor.find(in: cut, zip64: false, expecting: values) == nil)
    }
}

// MARK: - Zip64 past 4 GiB

/// A stream of parts, each a byte array repeated some number of times: gigabytes from a few kilobytes.
private final class RepeatingStream: ByteStream {
    private let parts: [(bytes: [UInt8], count: Int)]
    private var part = 0, repetition = 0, position = 0

    init(_ parts: [(bytes: [UInt8], count: Int)]) { self.parts = parts }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ZipError) -> Int {
        while part < parts.count {
            let (bytes, count) = parts[part]
            guard repetition < count, !bytes.isEmpty else {
                (part, repetition, position) = (part + 1, 0, 0)
                continue
            }
            let taken = min(buffer.count, bytes.count - position)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: taken) }
            position += taken
            if position == bytes.count { (position, repetition) = (0, repetition + 1) }
            return taken
        }
        return 0
    }
}

/// The local header of a Zip64 entry: sizes 0xFFFFFFFF in the header, the real ones in the extra field.
private func streamZip64Header(name: String, method: CompressionMethod, flags: UInt16, crc: UInt32,
                               compressed: UInt64, uncompressed: UInt64) -> [UInt8] {
    var extra = ByteWriter()
    ExtraField.append(id: ExtraFieldID.zip64, data: Zip64ExtraField(uncompressedSize: uncompressed,
                                                                    compressedSize: compressed).encoded, to: &extra)
    let header = LocalFileHeader(fields: EntryFields(versionNeeded: 45, flags: flags, method: method.rawValue, dosTime: 0, dosDate: 0x21,
                                 crc32: crc, compressedSize: FormatLimit.max32, uncompressedSize: FormatLimit.max32),
                                 name: Array(name.utf8), extra: extra.bytes)
    var writer = ByteWriter()
    header.encode(into: &writer)
    return writer.bytes
}

/// Reads every entry of `stream` without keeping the data; returns each verified entry.
private func streamCountAll(_ stream: any ByteStream) throws(ZipError) -> [ZipStreamEntry] {
    let reader = ZipStreamReader(stream, name: "big.zip", limits: .unlimited, bufferSize: 1 << 20)
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    var entries: [ZipStreamEntry] = []
    while try reader.nextEntry() != nil {
        while try buffer.withMutableRawBytes({ (raw) throws(ZipError) -> Int in try reader.read(into: raw) }) > 0 {}
        if let entry = reader.currentEntry { entries.append(entry) }
    }
    return entries
}

@Test func zipStreamReaderReadsEntriesPastFourGiB() throws {
    let block = [UInt8](repeating: 0, count: 1 << 20), blocks = 4097  // 4 GiB + 1 MiB
    let size = UInt64(block.count * blocks)
    let blockCRC = CRC32.checksum(block)
    let crc = (0..<blocks).reduce(UInt32(0)) { sum, _ in CRC32.combine(sum, blockCRC, secondLength: UInt64(block.count)) }
    // Deflate: independent full-flushed blocks repeated, then a final empty block; a 64-bit descriptor after.
    let deflater = try Deflater(level: 6)
    let deflated = try streamDeflate(block, flush: .full, with: deflater), final = try streamDeflate([], flush: .finish, with: deflater)
    let compressed = UInt64(deflated.count * blocks + final.count)
    var descriptor = ByteWriter()
    descriptor.write(Signature.dataDescriptor); descriptor.write(crc); descriptor.write(compressed); descriptor.write(size)
    var tail = ByteWriter()
    tail.write(Signature.centralDirectoryHeader)
    let stream = RepeatingStream([
        (streamZip64Header(name: "stored.bin", method: .stored, flags: 0, crc: crc, compressed: size, uncompressed: size), 1),
        (block, blocks),
        (streamZip64Header(name: "deflated.bin", method: .deflate, flags: GeneralPurposeFlag.dataDescriptor, crc: 0,
                           compressed: 0, uncompressed: 0), 1),
        (deflated, blocks), (final, 1), (descriptor.bytes, 1), (tail.bytes, 1),
    ])
    let entries = try streamCountAll(stream)
    #expect(entries.map(\.name) == ["stored.bin", "deflated.bin"])
    #expect(entries.map(\.uncompressedSize) == [size, size])
    #expect(entries.map(\.compressedSize) == [size, compressed])
    #expect(entries.map(\.crc32) == [crc, crc])
}

/// Compresses all of `input` in one call with `flush`.
private func streamDeflate(_ input: [UInt8], flush: Deflater.Flush, with deflater: Deflater) throws -> [UInt8] {
    var output = [UInt8](repeating: 0, count: deflater.bound(input.count) + 64)
    let step = try input.withRawBytes { (source) throws(ZipError) -> Deflater.Step in
        try output.withMutableRawBytes { (target) throws(ZipError) -> Deflater.Step in
            try deflater.deflate(source, into: target, flush: flush)
        }
    }
    #expect(step.consumed == input.count && step.produced < output.count)
    return Array(output.prefix(step.produced))
}
