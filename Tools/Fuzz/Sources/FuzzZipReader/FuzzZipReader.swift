// libFuzzer target: arbitrary bytes opened as a zip archive. Any ZipError is a fine answer; a crash, a
// trap, a hang (-timeout) or runaway memory (-rss_limit_mb) is a finding, and so is a broken promise of
// the entry reader (more bytes than declared, a wrong size or CRC reported as success).
import AssetPackZip

/// Limits small enough that a legitimate archive of fuzz size never takes long to read.
let limits = ZipLimits(maxEntries: 10_000, maxTotalUncompressedSize: 64 << 20,
                       maxCompressionRatio: 1_000, ratioGraceSize: 1 << 20)

/// Directory entries are not counted by `maxTotalUncompressedSize`; stop reading (not a finding) past this.
let readBudget: UInt64 = 256 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    readRandomAccess(MemorySource(bytes, name: "fuzz.zip"))
    readForward(bytes)
    return 0
}

/// Opens the bytes with ``ZipArchive``, looks every name up, and reads every entry to its end (every other
/// one through shared ``ZipReadBuffers``, so state left by one entry meets the next). A stored
/// entry's data range is opened as an archive of its own (a nested zip), two levels deep at most.
func readRandomAccess(_ source: any RandomAccessSource, depth: Int = 0) {
    guard let archive = try? ZipArchive(source: source, limits: limits) else { return }
    let buffers = ZipReadBuffers(inputSize: 4096)  // lent to every other entry's reader, reused across them
    var budget = readBudget
    for entry in archive.entries {
        exerciseLookups(archive, entry)
        if depth < 2, entry.method == .stored, let range = try? archive.dataRange(of: entry) {
            guard range.upperBound <= source.size else { fatalError("dataRange \(range) of \"\(entry.name)\" is past the end") }
            readRandomAccess(SliceSource(source, offset: range.lowerBound, length: UInt64(range.count)), depth: depth + 1)
        }
        guard budget > 0, let reader = try? (entry.index % 2 == 0 ? archive.open(entry) : archive.open(entry, buffers: buffers))
        else { continue }
        let label = "ZipArchive entry \(entry.index) \"\(entry.name)\""
        let outcome = drain(reader, chunk: chunkSize(entry.index), declared: entry.uncompressedSize, budget: budget, label)
        budget -= min(budget, outcome.total)
        guard outcome.ended else { continue }
        guard outcome.total == entry.uncompressedSize, outcome.crc == entry.crc32 else {
            fatalError("\(label) ended without error after \(outcome.total) bytes with CRC \(outcome.crc), "
                       + "but declares \(entry.uncompressedSize) bytes with CRC \(entry.crc32)")
        }
    }
}

/// Reads the same bytes front to back with ``ZipStreamReader``; every third entry is left for
/// `nextEntry()` to skip.
func readForward(_ bytes: [UInt8]) {
    let reader = ZipStreamReader(MemoryStream(bytes), name: "fuzz.zip", limits: limits, bufferSize: 4096)
    var budget = readBudget, index = 0
    while budget > 0, let entry = try? reader.nextEntry() {
        _ = (entry.kind, entry.isEncrypted, entry.hasDataDescriptor, entry.hasZip64Field, entry.modified.unixTime)
        index += 1
        if index % 3 == 0 { continue }
        let label = "ZipStreamReader entry \(index) \"\(entry.name)\""
        let outcome = drain(reader, chunk: chunkSize(index), declared: entry.uncompressedSize, budget: budget, label)
        budget -= min(budget, outcome.total)
        guard outcome.ended else { continue }
        guard let final = reader.currentEntry, final.uncompressedSize == outcome.total, final.crc32 == outcome.crc else {
            fatalError("\(label) ended without error after \(outcome.total) bytes with CRC \(outcome.crc), but "
                       + "currentEntry says \(String(describing: reader.currentEntry?.uncompressedSize)) bytes, "
                       + "CRC \(String(describing: reader.currentEntry?.crc32))")
        }
    }
}

/// The index must find what the entry list holds.
func exerciseLookups(_ archive: ZipArchive, _ entry: ZipEntry) {
    guard let found = archive.entry(named: entry.name) else {
        fatalError("entry \(entry.index) \"\(entry.name)\" is listed but entry(named:) does not find it")
    }
    guard found.name == entry.name else { fatalError("entry(named: \"\(entry.name)\") found \"\(found.name)\"") }
    _ = archive.contentsOfDirectory(entry.name)
    _ = archive.isDirectory(entry.name)
    _ = (entry.kind, entry.permissions, entry.isExecutable, entry.hasDataDescriptor, entry.modified.unixTime)
}

/// Read sizes that vary by entry, to exercise chunk boundaries.
func chunkSize(_ index: Int) -> Int { [1, 7, 4096, 1 << 16][index % 4] }

/// What reading a stream to its end (or an error, or the budget) gave.
struct Outcome {
    var total: UInt64 = 0
    var crc: UInt32 = 0
    /// True when the stream reported its end (0) rather than an error, or running out of budget.
    var ended = false
}

/// Reads `stream` in `chunk`-byte reads (64 KiB ones after the first 64 KiB, to stay fast), trapping when
/// it yields more than `declared` bytes or more than it was asked for.
func drain(_ stream: some ByteStream, chunk: Int, declared: UInt64?, budget: UInt64, _ label: String) -> Outcome {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var crc = CRC(), outcome = Outcome()
    while outcome.total < budget {
        let asked = outcome.total < 1 << 16 ? chunk : buffer.count
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(ZipError) -> Int in try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<asked])) }
        }
        guard case .success(let count) = result else { return outcome }
        if count == 0 {
            outcome.ended = true
            break
        }
        guard count <= asked else { fatalError("\(label): read(into:) returned \(count) for a \(asked)-byte buffer") }
        outcome.total += UInt64(count)
        if let declared, outcome.total > declared {
            fatalError("\(label) yielded \(outcome.total) bytes, more than the \(declared) declared")
        }
        crc.update(buffer[0..<count])
    }
    outcome.crc = crc.value
    return outcome
}

/// An independent CRC-32 (ISO-HDLC), so a bug in the library's own checksum cannot hide a wrong answer.
struct CRC {
    private static let table: [UInt32] = (0..<256).map { (index: UInt32) -> UInt32 in
        var value = index
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
    private var state: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { ~state }

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        for byte in bytes { state = Self.table[Int(UInt8(truncatingIfNeeded: state) ^ byte)] ^ (state >> 8) }
    }
}
