import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// A good archive and the bytes each of its entries must read as.
struct Fixture: Sendable {
    let bytes: [UInt8]
    let contents: [String: [UInt8]]
}

/// The good archives the mutation tests damage: deflated and stored, with and without data descriptors.
enum FixtureKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case writerMixed = "ZipWriter, deflated + stored"
    case pythonDescriptors = "python to a pipe (data descriptors)"
    case zipStreamed = "zip streamed (descriptors, stored + deflated)"

    var testDescription: String { rawValue }

    func make() throws -> Fixture {
        var random = SeededRandom(seed: 31)
        let contents: [String: [UInt8]] = [
            "text.txt": random.text(3_000), "noise.bin": random.bytes(600), "empty": [], "d/small.txt": Array("small".utf8),
        ]
        let directory = try TemporaryDirectory("fixture")
        for (name, bytes) in contents { try directory.write("src/\(name)", bytes) }
        let out = directory.file("f.zip")
        switch self {
        case .writerMixed:
            let writer = try ZipWriter(path: out, options: .deterministic())
            for (name, bytes) in contents.sorted(by: { $0.key < $1.key }) {
                try writer.addFile(name, contents: bytes, method: name == "noise.bin" ? .stored : .deflate)
            }
            try writer.finish(sync: false)
        case .pythonDescriptors:
            try ExternalTool.python3.require()
            let script = try writePythonArchiver(in: directory)
            try shell(#"python3 "$PY" deflated - | cat > "$OUT""#, in: directory.file("src"), environment: ["PY": script, "OUT": out])
        case .zipStreamed:
            try ExternalTool.zip.require()
            try shell(#"zip -q -r -n .bin - . | cat > "$OUT""#, in: directory.file("src"), environment: ["OUT": out])
        }
        let bytes = try fileBytes(out)
        let archive = try ZipArchive(source: MemorySource(bytes))
        let files = archive.entries.filter { $0.kind != .directory }.map(\.name).sorted()
        #expect(files == contents.keys.sorted())
        var expected = contents
        for entry in archive.entries where entry.kind == .directory { expected[entry.name] = [] }
        return Fixture(bytes: bytes, contents: expected)
    }
}

/// Byte ranges that hold entry data; everything else is headers, descriptors and directory.
func dataRanges(of bytes: [UInt8]) throws -> [Range<Int>] {
    let archive = try ZipArchive(source: MemorySource(bytes))
    return try archive.entries.map { entry in
        let start = Int(try LocalHeaderCheck.dataOffset(of: entry, in: archive.source))
        return start..<start + Int(entry.compressedSize)
    }
}

/// The rule for any damaged archive: opening and reading either gives every entry's exact bytes or throws a
/// ``ZipError``; it never returns other bytes silently, and never takes long. Returns true when it threw.
@discardableResult
func expectExactOrError(_ bytes: [UInt8], _ fixture: Fixture, _ label: String) -> Bool {
    let start = ContinuousClock.now
    defer {
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(10), "\(label) took \(elapsed)")
    }
    do {
        let archive = try ZipArchive(source: MemorySource(bytes, name: "damaged.zip"))
        #expect(archive.entries.count == fixture.contents.count, "\(label): \(archive.entries.count) entries, no error")
        for entry in archive.entries {
            let data = try readEntry(archive, entry, chunk: 1_000, bufferSize: 512)
            #expect(data == fixture.contents[entry.name], "\(label): entry \"\(entry.name)\" read wrong bytes without an error")
        }
        return false
    } catch {
        #expect(error.archive == "damaged.zip", "\(label): \(error) does not name the archive")
        return true
    }
}

/// Damaged and hostile archives.
@Suite struct CorruptionTests {
    @Test(.hangGuard, arguments: FixtureKind.allCases)
    func everyHeaderByteFlipped(_ kind: FixtureKind) throws {
        let fixture = try kind.make()
        let data = try dataRanges(of: fixture.bytes)
        var errors = 0, positions = 0
        for position in fixture.bytes.indices where !data.contains(where: { $0.contains(position) }) {
            for mask: UInt8 in [0x01, 0x80, 0xFF] {
                var damaged = fixture.bytes
                damaged[position] ^= mask
                if expectExactOrError(damaged, fixture, "byte \(position) ^ \(mask)") { errors += 1 }
                positions += 1
            }
        }
        #expect(positions > 500)
        #expect(errors > positions / 3, "most header damage must be noticed")
    }

    @Test(.hangGuard, arguments: FixtureKind.allCases)
    func sampledDataBytesFlipped(_ kind: FixtureKind) throws {
        let fixture = try kind.make()
        for range in try dataRanges(of: fixture.bytes) {
            for position in stride(from: range.lowerBound, to: range.upperBound, by: 13) {
                var damaged = fixture.bytes
                damaged[position] ^= 0x55
                // Data is covered by CRC-32: a flip there must always be an error.
                #expect(expectExactOrError(damaged, fixture, "data byte \(position)"), "data byte \(position) flip went unnoticed")
            }
        }
    }

    @Test(.hangGuard, arguments: FixtureKind.allCases)
    func truncatedAtManyLengths(_ kind: FixtureKind) throws {
        let fixture = try kind.make()
        let count = fixture.bytes.count
        var lengths = Set(stride(from: 0, to: count, by: 7))
        lengths.formUnion(max(0, count - 200)..<count)
        for length in lengths.sorted() {
            #expect(expectExactOrError(Array(fixture.bytes[0..<length]), fixture, "truncated to \(length)"),
                    "truncated to \(length) of \(count) bytes went unnoticed")
        }
    }

    @Test(.hangGuard, arguments: FixtureKind.allCases)
    func randomMultiByteDamage(_ kind: FixtureKind) throws {
        let fixture = try kind.make()
        var random = SeededRandom(seed: 0xDA4A6E)
        for round in 0..<300 {
            var damaged = fixture.bytes
            let flips = 1 + Int(random.next() % 8)
            for _ in 0..<flips {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            expectExactOrError(damaged, fixture, "round \(round) (\(flips) random bytes)")
        }
    }

    @Test func emptyAndRandomBytesAreNotArchives() throws {
        var random = SeededRandom(seed: 5)
        for length in [0, 1, 21, 22, 100, 70_000] {
            let bytes = random.bytes(length)
            let error = zipError { () throws(ZipError) in try ZipArchive(source: MemorySource(bytes, name: "noise.zip")) }
            #expect(error?.code == .format, "\(length) random bytes")
            #expect(error?.description.hasPrefix("noise.zip: ") == true)
        }
        let directory = try TemporaryDirectory("empty")
        let path = try directory.write("empty.zip", [])
        let error = zipError { () throws(ZipError) in try ZipArchive(path: path) }
        #expect(error?.code == .format)
        #expect(error?.description.contains(path) == true)
    }
}

/// Opens `bytes` from a file and reads every entry; expects the first failure to have `code`, to name the
/// file, and to name `entry` when given.
func expectFailure(_ bytes: [UInt8], _ codes: Set<ZipError.Code>, entry: String? = nil, limits: ZipLimits = .default,
                   sourceLocation: SourceLocation = #_sourceLocation) throws {
    let directory = try TemporaryDirectory("damaged")
    let path = directory.file("damaged.zip")
    try writeBytes(bytes, to: path)
    let error = zipError({ () throws(ZipError) in try readAllEntries(ZipArchive(path: path, limits: limits)) },
                         sourceLocation: sourceLocation)
    guard let error else { return }
    #expect(codes.contains(error.code), "got \(error)", sourceLocation: sourceLocation)
    #expect(error.archive == path, "\(error) does not name the archive", sourceLocation: sourceLocation)
    #expect(error.description.hasPrefix(path + ": "), sourceLocation: sourceLocation)
    if let entry {
        #expect(error.entry == entry, "\(error) does not name the entry", sourceLocation: sourceLocation)
        #expect(error.description.contains("entry \"\(entry)\""), sourceLocation: sourceLocation)
    }
    // An archive too large to hold its entries (only summarized when opened) fails the same way.
    var summarizing = limits
    summarizing.maxHeldDirectoryBytes = 0
    let summarized = zipError({ () throws(ZipError) in try readAllEntries(ZipArchive(path: path, limits: summarizing)) },
                              sourceLocation: sourceLocation)
    #expect(summarized?.description == error.description, "summarized: \(String(describing: summarized))", sourceLocation: sourceLocation)
}

/// Rewrites the central directory (and end record) of `sample` after `change` edits its records.
func rebuiltDirectory(_ sample: SampleArchive, _ change: (inout [CentralDirectoryHeader]) -> Void) -> [UInt8] {
    var cursor = ByteCursor(sample.bytes, position: sample.directoryOffset)
    var headers = sample.names.map { _ in CentralDirectoryHeader.parse(&cursor)! }
    change(&headers)
    var writer = ByteWriter()
    for header in headers { header.encode(into: &writer) }
    let size = writer.bytes.count
    EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: UInt16(headers.count),
                          totalEntries: UInt16(headers.count), centralDirectorySize: UInt32(size),
                          centralDirectoryOffset: UInt32(sample.directoryOffset), comment: []).encode(into: &writer)
    return Array(sample.bytes[0..<sample.directoryOffset]) + writer.bytes
}

/// Damaged archives fail with the right error code.
@Suite struct CorruptionCodeTests {
    // Entries of SampleArchive: 0 "a/text.txt" deflated, 1 "a/stored.bin" stored, 2 "random.bin" deflated.

    @Test func wrongCRCIsChecksum() throws {
        var sample = try SampleArchive.make()
        let crc = sample.bytes.readLE(UInt32.self, at: sample.centralOffsets[0] + FieldOffset.Central.crc)
        sample.patchBoth(crc ^ 1, local: FieldOffset.Local.crc, central: FieldOffset.Central.crc, entry: 0)
        try expectFailure(sample.bytes, [.checksum], entry: "a/text.txt")

        var stored = try SampleArchive.make()
        stored.bytes[stored.localOffsets[1] + 30 + "a/stored.bin".utf8.count + 100] ^= 0x10
        try expectFailure(stored.bytes, [.checksum], entry: "a/stored.bin")
    }

    @Test(arguments: [-1, 1, 1_000])
    func wrongUncompressedSizeIsSizeMismatch(delta: Int) throws {
        var sample = try SampleArchive.make()
        let size = sample.bytes.readLE(UInt32.self, at: sample.centralOffsets[0] + FieldOffset.Central.uncompressed)
        let patched = UInt32(Int(size) + delta)
        sample.patchBoth(patched, local: FieldOffset.Local.uncompressed, central: FieldOffset.Central.uncompressed, entry: 0)
        try expectFailure(sample.bytes, [.sizeMismatch], entry: "a/text.txt")

        // Only the central header changed: the local header disagrees.
        var central = try SampleArchive.make()
        central.bytes.patch(patched, at: central.centralOffsets[0] + FieldOffset.Central.uncompressed)
        try expectFailure(central.bytes, [.headerMismatch], entry: "a/text.txt")

        // A stored entry whose sizes disagree.
        var stored = try SampleArchive.make()
        stored.bytes.patch(UInt32(700 + delta), at: stored.centralOffsets[1] + FieldOffset.Central.uncompressed)
        try expectFailure(stored.bytes, [.sizeMismatch], entry: "a/stored.bin")
    }

    @Test(arguments: [0, 2])
    func compressedDataCutShortIsTruncated(entry: Int) throws {
        var sample = try SampleArchive.make()
        let size = sample.bytes.readLE(UInt32.self, at: sample.centralOffsets[entry] + FieldOffset.Central.compressed)
        sample.patchBoth(size / 2, local: FieldOffset.Local.compressed, central: FieldOffset.Central.compressed, entry: entry)
        try expectFailure(sample.bytes, [.truncated], entry: sample.names[entry])
    }

    @Test func truncatedCentralDirectory() throws {
        let sample = try SampleArchive.make()
        // The last record loses 10 bytes; the end record is kept and says the directory is 10 bytes shorter.
        let directoryEnd = sample.endOffset
        var cut = Array(sample.bytes[0..<directoryEnd - 10]) + Array(sample.bytes[directoryEnd...])
        let size = cut.readLE(UInt32.self, at: cut.count - 22 + FieldOffset.End.size)
        cut.patch(size - 10, at: cut.count - 22 + FieldOffset.End.size)
        try expectFailure(cut, [.truncated, .format])
        // The directory is cut but the end record still claims its full size.
        let unpatched = Array(sample.bytes[0..<directoryEnd - 10]) + Array(sample.bytes[directoryEnd...])
        try expectFailure(unpatched, [.truncated, .format])
        // The whole archive cut inside the directory.
        try expectFailure(Array(sample.bytes[0..<sample.directoryOffset + 30]), [.format])
    }

    @Test func missingEndRecordIsFormat() throws {
        let sample = try SampleArchive.make()
        try expectFailure(Array(sample.bytes.dropLast(22)), [.format])
        var wrongSignature = sample.bytes
        wrongSignature[sample.endOffset + 2] = 0x07
        try expectFailure(wrongSignature, [.format])
    }

    @Test func localHeaderOffsetPastTheEnd() throws {
        for offset: UInt32 in [0x7FFF_FFFF, UInt32(try SampleArchive.make().directoryOffset - 10)] {
            var sample = try SampleArchive.make()
            sample.bytes.patch(offset, at: sample.centralOffsets[1] + FieldOffset.Central.localOffset)
            try expectFailure(sample.bytes, [.overlap, .format])
        }
    }

    @Test func hugeZip64OffsetDoesNotTrap() throws {
        let sample = try SampleArchive.make()
        for offset: UInt64 in [.max, .max - 10, 1 << 63] {
            let bytes = rebuiltDirectory(sample) { headers in
                var writer = ByteWriter()
                ExtraField.append(id: ExtraFieldID.zip64, data: Zip64ExtraField(localHeaderOffset: offset).encoded, to: &writer)
                headers[1].localHeaderOffset = FormatLimit.max32
                headers[1].extra = writer.bytes
            }
            try expectFailure(bytes, [.overlap, .format])
        }
    }

    @Test func twoRecordsSharingOneLocalHeaderOverlap() throws {
        var sample = try SampleArchive.make()
        sample.bytes.patch(UInt32(sample.localOffsets[0]), at: sample.centralOffsets[2] + FieldOffset.Central.localOffset)
        try expectFailure(sample.bytes, [.overlap])

        // The same file named twice (a zip "quine"-style bomb).
        let twice = rebuiltDirectory(sample) { headers in headers.append(headers[0]) }
        try expectFailure(twice, [.overlap])
    }

    @Test func dataRunningIntoTheNextEntryOverlaps() throws {
        var sample = try SampleArchive.make()
        let size = sample.bytes.readLE(UInt32.self, at: sample.centralOffsets[0] + FieldOffset.Central.compressed)
        sample.bytes.patch(size + 200, at: sample.centralOffsets[0] + FieldOffset.Central.compressed)
        try expectFailure(sample.bytes, [.overlap], entry: "a/text.txt")
        // The last entry's data running into the central directory.
        var last = try SampleArchive.make()
        let lastSize = last.bytes.readLE(UInt32.self, at: last.centralOffsets[2] + FieldOffset.Central.compressed)
        last.bytes.patch(lastSize + 50, at: last.centralOffsets[2] + FieldOffset.Central.compressed)
        try expectFailure(last.bytes, [.overlap], entry: "random.bin")
    }

    @Test func entryCountTheDirectoryCannotHoldIsFormat() throws {
        for count: UInt16 in [4, 60_000, 0xFFFE] {
            var sample = try SampleArchive.make()
            sample.bytes.patch(count, at: sample.endOffset + FieldOffset.End.totalEntries)
            sample.bytes.patch(count, at: sample.endOffset + FieldOffset.End.entriesOnDisk)
            try expectFailure(sample.bytes, [.format])
        }
        // Fewer entries than the directory holds.
        var fewer = try SampleArchive.make()
        fewer.bytes.patch(UInt16(2), at: fewer.endOffset + FieldOffset.End.totalEntries)
        fewer.bytes.patch(UInt16(2), at: fewer.endOffset + FieldOffset.End.entriesOnDisk)
        try expectFailure(fewer.bytes, [.format])
    }

    @Test func encryptedEntries() throws {
        var sample = try SampleArchive.make()
        let flags = sample.bytes.readLE(UInt16.self, at: sample.centralOffsets[1] + FieldOffset.Central.flags)
        sample.patchBoth(flags | 1, local: FieldOffset.Local.flags, central: FieldOffset.Central.flags, entry: 1)
        try expectFailure(sample.bytes, [.encrypted], entry: "a/stored.bin")

        try ExternalTool.zip.require()
        let directory = try TemporaryDirectory("encrypted")
        try directory.write("secret.txt", text: "attack at dawn")
        try shell("zip -q -P pw enc.zip secret.txt", in: directory.path)
        let archive = try ZipArchive(path: directory.file("enc.zip"))
        let entry = try archive.requireEntry(named: "secret.txt")
        #expect(entry.isEncrypted)
        try expectFailure(try fileBytes(directory.file("enc.zip")), [.encrypted], entry: "secret.txt")
    }

    @Test(arguments: [(UInt16(12), "bzip2 (12)"), (14, "lzma (14)"), (93, "zstd (93)"), (99, "aes (99)"), (9, "deflate64 (9)")])
    func unsupportedMethodIsNamed(method: UInt16, name: String) throws {
        var sample = try SampleArchive.make()
        sample.patchBoth(method, local: FieldOffset.Local.method, central: FieldOffset.Central.method, entry: 0)
        let directory = try TemporaryDirectory("method")
        let path = directory.file("m.zip")
        try writeBytes(sample.bytes, to: path)
        let archive = try ZipArchive(path: path)
        let error = zipError { () throws(ZipError) in try archive.open(archive.requireEntry(named: "a/text.txt")) }
        #expect(error?.code == .unsupportedMethod)
        #expect(error?.description.contains(name) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("\(path): entry \"a/text.txt\": ") == true)
        // The other entries still read.
        #expect(try archive.contents(of: archive.requireEntry(named: "random.bin")) == sample.contents["random.bin"])
    }

    @Test(arguments: [("BZip2", "bzip2 (12)"), ("LZMA", "lzma (14)"), ("Deflate64", "deflate64 (9)")])
    func sevenZipMethodsAreUnsupported(method: String, name: String) throws {
        try ExternalTool.sevenZip.require()
        let directory = try TemporaryDirectory("7z-method")
        var random = SeededRandom(seed: 3)
        try directory.write("text.txt", random.text(20_000))
        try shell("7z a -tzip -mm=\(method) -bso0 -bsp0 m.zip text.txt", in: directory.path)
        let archive = try ZipArchive(path: directory.file("m.zip"))
        let error = zipError { () throws(ZipError) in try archive.contents(of: archive.requireEntry(named: "text.txt")) }
        #expect(error?.code == .unsupportedMethod)
        #expect(error?.entry == "text.txt")
        #expect(error?.description.contains(name) == true, "\(String(describing: error))")
    }

    @Test func multiDiskArchivesAreUnsupported() throws {
        for field in [FieldOffset.End.disk, FieldOffset.End.directoryDisk] {
            var sample = try SampleArchive.make()
            sample.bytes.patch(UInt16(1), at: sample.endOffset + field)
            try expectFailure(sample.bytes, [.unsupportedFeature])
        }
        var entryDisk = try SampleArchive.make()
        entryDisk.bytes.patch(UInt16(2), at: entryDisk.centralOffsets[1] + FieldOffset.Central.disk)
        try expectFailure(entryDisk.bytes, [.unsupportedFeature], entry: "a/stored.bin")
    }

    @Test func limitsAreEnforced() throws {
        let sample = try SampleArchive.make()
        try expectFailure(sample.bytes, [.limitExceeded], limits: ZipLimits(maxEntries: 2))
        try expectFailure(sample.bytes, [.limitExceeded], limits: ZipLimits(maxTotalUncompressedSize: 4_500))
        #expect(try openAndReadAll(sample.bytes, limits: ZipLimits(maxEntries: 3, maxTotalUncompressedSize: 5_600)).count == 3)
    }

    @Test(arguments: [1, 6, 9])
    func noGenuineDeflateStreamPassesTheDefaultRatioLimit(level: Int) throws {
        // 16 MiB of one byte is deflate's best case (zlib: about 1,030:1 at levels 6-9); read with the
        // default limits, declared sizes and real output alike stay within the ceiling.
        let blank = [UInt8](repeating: 0x20, count: 16 << 20)
        var entry = RawZip.Entry(name: Array("blank.bin".utf8), data: try BlockDeflater(level: level).deflate(blank), method: 8)
        entry.crc32 = CRC32.checksum(blank)
        entry.uncompressedSize = UInt32(blank.count)
        #expect(Double(blank.count) / Double(entry.data.count) <= ZipLimits.deflateMaxRatio)
        #expect(ZipLimits.default.maxCompressionRatio == ZipLimits.deflateMaxRatio)
        let archive = try ZipArchive(source: MemorySource(RawZip([entry]).bytes, name: "blank.zip"))
        #expect(try archive.verify() == UInt64(blank.count))
    }

    @Test func declaredSizesPastDeflatesCeilingAreRefused() {
        // 1,033 bytes per compressed byte is more than any deflate stream gives: the sizes lie.
        let input: UInt64 = 2 << 20
        #expect(throws: Never.self) { try ZipLimits.default.checkRatio(output: 1_032 * input, input: input) }
        let error = zipError { () throws(ZipError) in try ZipLimits.default.checkRatio(output: 1_033 * input, input: input) }
        #expect(error?.code == .limitExceeded && error?.message.contains("1032:1") == true)
    }

    @Test func failedReaderKeepsFailing() throws {
        var sample = try SampleArchive.make()
        let crc = sample.bytes.readLE(UInt32.self, at: sample.centralOffsets[1] + FieldOffset.Central.crc)
        sample.patchBoth(crc ^ 1, local: FieldOffset.Local.crc, central: FieldOffset.Central.crc, entry: 1)
        let archive = try ZipArchive(source: MemorySource(sample.bytes))
        let reader = try archive.open(archive.requireEntry(named: "a/stored.bin"))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let first = zipError { () throws(ZipError) in
            try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
        }
        #expect(first?.code == .checksum)
        let again = zipError { () throws(ZipError) in
            try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
        }
        #expect(again?.code == .checksum, "a failed stream must not look like a clean end")
    }

    @Test func emptyNamesAndEmptyRecordsDoNotTrap() throws {
        // A stored, empty entry with an empty name: zero-length reads everywhere.
        var writer = ByteWriter()
        LocalFileHeader(fields: EntryFields(versionNeeded: 10, flags: 0, method: 0, dosTime: 0, dosDate: 0x21, crc32: 0, compressedSize: 0,
                        uncompressedSize: 0), name: [], extra: []).encode(into: &writer)
        let directoryOffset = writer.bytes.count
        CentralDirectoryHeader(versionMadeBy: 0, fields: EntryFields(versionNeeded: 10, flags: 0, method: 0, dosTime: 0, dosDate: 0x21,
                               crc32: 0, compressedSize: 0, uncompressedSize: 0), diskNumberStart: 0, internalAttributes: 0,
                               externalAttributes: 0, localHeaderOffset: 0, name: [], extra: [], comment: []).encode(into: &writer)
        EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 1, totalEntries: 1,
                              centralDirectorySize: UInt32(writer.bytes.count - directoryOffset),
                              centralDirectoryOffset: UInt32(directoryOffset), comment: []).encode(into: &writer)
        let contents = try openAndReadAll(writer.bytes)
        #expect(contents == ["": []])
    }

    /// How a directory entry's local header is broken (`unzip -t`: "bad zipfile offset (local header sig)").
    static let directoryHeaderDamages: [(label: String, code: ZipError.Code, apply: @Sendable (inout [UInt8], Int) -> Void)] = [
        ("signature", .format, { bytes, local in bytes.patch(UInt32(0x0403_4b50 ^ 0xFF), at: local) }),
        ("name", .headerMismatch, { bytes, local in bytes.replaceSubrange(local + 30..<local + 32, with: Array("..".utf8)) }),
        ("method 99", .headerMismatch, { bytes, local in bytes.patch(UInt16(99), at: local + FieldOffset.Local.method) }),
    ]

    @Test(arguments: 0..<directoryHeaderDamages.count)
    func aDirectoryEntrysLocalHeaderIsCheckedThoughItHasNoData(_ damage: Int) throws {
        // "d/" and "d/a.txt": the local name "d/" becomes "..", a bad signature, or method 99.
        let (label, code, apply) = Self.directoryHeaderDamages[damage]
        var (bytes, layout) = RawZip([RawZip.directory("d/"), RawZip.file("d/a.txt", [1, 2, 3])]).build()
        #expect(try ZipArchive(source: MemorySource(bytes, name: "dir.zip")).verify() == 3, "the control")
        apply(&bytes, layout.localOffsets[0])
        let archive = try ZipArchive(source: MemorySource(bytes, name: "dir.zip"))
        let directory = try archive.requireEntry(named: "d/")
        for error in [zipError { () throws(ZipError) in try archive.verify() },
                      zipError { () throws(ZipError) in try archive.checkLocalHeader(of: directory) }] {
            #expect(error?.code == code, "\(label): \(String(describing: error))")
            #expect(error?.entry == "d/" && error?.archive == "dir.zip", "\(label)")
        }
    }

    @Test func deflatedEmptyEntryWithNoCompressedBytesReads() throws {
        // Some writers store an empty deflated file as zero bytes of deflate data.
        var writer = ByteWriter()
        let name = Array("empty.txt".utf8)
        LocalFileHeader(fields: EntryFields(versionNeeded: 20, flags: 0, method: 8, dosTime: 0, dosDate: 0x21, crc32: 0, compressedSize: 0,
                        uncompressedSize: 0), name: name, extra: []).encode(into: &writer)
        let directoryOffset = writer.bytes.count
        CentralDirectoryHeader(versionMadeBy: 0, fields: EntryFields(versionNeeded: 20, flags: 0, method: 8, dosTime: 0, dosDate: 0x21,
                               crc32: 0, compressedSize: 0, uncompressedSize: 0), diskNumberStart: 0, internalAttributes: 0,
                               externalAttributes: 0, localHeaderOffset: 0, name: name, extra: [], comment: []).encode(into: &writer)
        EndOfCentralDirectory(diskNumber: 0, centralDirectoryDisk: 0, entriesOnDisk: 1, totalEntries: 1,
                              centralDirectorySize: UInt32(writer.bytes.count - directoryOffset),
                              centralDirectoryOffset: UInt32(directoryOffset), comment: []).encode(into: &writer)
        #expect(try openAndReadAll(writer.bytes) == ["empty.txt": []])
    }
}
