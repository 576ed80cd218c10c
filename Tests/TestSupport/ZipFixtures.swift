import Foundation
import Testing
import AssetPackZip

// Helpers shared by the zip tests: the deterministic source tree every interop archive is made from,
// running external archivers, reading every entry with a bound, and patching archive bytes in place.

/// The files every interop test archives: text that compresses, incompressible bytes, an empty file,
/// nesting, and a file larger than one read buffer. Same bytes on every run (seeded).
package enum SourceTree {
    package static let files: [String: [UInt8]] = {
        var random = SeededRandom(seed: 0x5eed_2024)
        return [
            "text.txt": random.text(20_000),
            "random.bin": random.bytes(50_000),
            "empty.txt": [],
            "dir/sub/nested.txt": random.text(3_000),
            "dir/tiny.bin": random.bytes(1),
            "big/large.txt": random.text(600_000),
        ]
    }()

    /// The directories the tree implies.
    package static let directories = ["big", "dir", "dir/sub"]

    /// Writes the tree under `directory/name` and returns that folder's path.
    @discardableResult
    package static func write(in directory: TemporaryDirectory, name: String = "src") throws -> String {
        for (path, bytes) in files { try directory.write("\(name)/\(path)", bytes) }
        return directory.file(name)
    }
}

/// Runs `script` with `/bin/sh -c` in `cwd`; fails the test (with the tool's stderr) when it exits non-zero.
@discardableResult
package func shell(_ script: String, in cwd: String, environment: [String: String]? = nil,
           sourceLocation: SourceLocation = #_sourceLocation) throws -> CommandResult {
    let result = try run("/bin/sh", ["-c", script], cwd: cwd, environment: environment)
    #expect(result.status == 0, "`\(script)` failed: \(result.stderr)\(result.stdout)", sourceLocation: sourceLocation)
    return result
}

/// Reads one entry to the end in `chunk`-sized reads. Never trusts the reader: fails if it yields more than
/// the entry declares or needs absurdly many calls (a hang guard).
package func readEntry(_ archive: ZipArchive, _ entry: ZipEntry, chunk: Int = 64 * 1024,
               bufferSize: Int = 256 * 1024) throws(ZipError) -> [UInt8] {
    let reader = try archive.open(entry, bufferSize: bufferSize)
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: chunk)
    var calls = 0
    while true {
        let count = try buffer.withMutableRawBytes { (raw) throws(ZipError) -> Int in try reader.read(into: raw) }
        if count == 0 { return result }
        result.append(contentsOf: buffer[0..<count])
        calls += 1
        guard UInt64(result.count) <= entry.uncompressedSize, calls <= result.count + 16 else {
            Issue.record("reader of \(entry.name) yielded \(result.count) bytes in \(calls) calls, \(entry.uncompressedSize) declared")
            return result
        }
    }
}

/// Every entry's bytes by name (directories included, as empty data).
package func readAllEntries(_ archive: ZipArchive, chunk: Int = 64 * 1024) throws(ZipError) -> [String: [UInt8]] {
    var result: [String: [UInt8]] = [:]
    for entry in archive.entries { result[entry.name] = try readEntry(archive, entry, chunk: chunk) }
    return result
}

/// Expects every file of ``SourceTree`` in `archive` with exactly its bytes (names prefixed with `prefix`).
package func expectSourceTree(in archive: ZipArchive, prefix: String = "",
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    for (path, expected) in SourceTree.files.sorted(by: { $0.key < $1.key }) {
        let entry = try #require(archive.entry(named: prefix + path), "missing \(prefix + path)",
                                 sourceLocation: sourceLocation)
        #expect(entry.kind == .file, sourceLocation: sourceLocation)
        let bytes = try readEntry(archive, entry, chunk: 10_007)
        #expect(bytes == expected, "\(path): \(bytes.count) bytes read, \(expected.count) expected",
                sourceLocation: sourceLocation)
    }
    #expect(try archive.verify() >= UInt64(SourceTree.files.values.reduce(0) { $0 + $1.count }),
            sourceLocation: sourceLocation)
}

/// Runs `body` and returns the ``ZipError`` it throws, or records an issue when it succeeds.
package func zipError<T>(_ body: () throws(ZipError) -> T, sourceLocation: SourceLocation = #_sourceLocation) -> ZipError? {
    do {
        _ = try body()
        Issue.record("expected a ZipError, but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Opens `bytes` as an archive and reads every entry: the whole read path in one call.
package func openAndReadAll(_ bytes: [UInt8], name: String = "<memory>", limits: ZipLimits = .default) throws(ZipError) -> [String: [UInt8]] {
    try readAllEntries(ZipArchive(source: MemorySource(bytes, name: name), limits: limits))
}

/// Little-endian patches of archive bytes, for building damaged archives from good ones.
extension Array where Element == UInt8 {
    package mutating func patch<T: FixedWidthInteger & UnsignedInteger>(_ value: T, at offset: Int) {
        for index in 0..<MemoryLayout<T>.size { self[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    package func readLE<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for index in 0..<MemoryLayout<T>.size { value |= T(self[offset + index]) << (8 * index) }
        return value
    }
}

/// Field offsets inside the records (APPNOTE 4.3.7, 4.3.12, 4.3.16), relative to the record's signature.
package enum FieldOffset {
    package enum Local {
        package static let flags = 6, method = 8, time = 10, crc = 14, compressed = 18, uncompressed = 22
    }
    package enum Central {
        package static let flags = 8, method = 10, time = 12, crc = 16, compressed = 20, uncompressed = 24
        package static let disk = 34, external = 38, localOffset = 42
    }
    package enum End {
        package static let disk = 4, directoryDisk = 6, entriesOnDisk = 8, totalEntries = 10, size = 12, offset = 16
    }
}

/// A small archive made by ``ZipWriter`` with a deflated text file, a stored random file and a deflated
/// random file, plus where its records are.
package struct SampleArchive {
    package var bytes: [UInt8]
    package let contents: [String: [UInt8]]
    package let names: [String]
    package let localOffsets: [Int]
    package let centralOffsets: [Int]
    package let directoryOffset: Int
    /// The end record (APPNOTE 4.3.16) is the last 22 bytes: the writer adds no comment.
    package var endOffset: Int { bytes.count - 22 }

    package static func make(seed: UInt64 = 7) throws -> SampleArchive {
        var random = SeededRandom(seed: seed)
        let contents: [(String, [UInt8], CompressionMethod)] = [
            ("a/text.txt", random.text(4_000), .deflate),
            ("a/stored.bin", random.bytes(700), .stored),
            ("random.bin", random.bytes(900), .deflate),
        ]
        let directory = try TemporaryDirectory("sample")
        let path = directory.file("sample.zip")
        let writer = try ZipWriter(path: path, options: .init(level: 6, fixedTime: 1_700_000_000))
        for (name, data, method) in contents { try writer.addFile(name, contents: data, method: method) }
        try writer.finish(sync: false)
        let bytes = try fileBytes(path)
        let archive = try ZipArchive(source: MemorySource(bytes))
        return SampleArchive(
            bytes: bytes, contents: Dictionary(uniqueKeysWithValues: contents.map { ($0.0, $0.1) }),
            names: contents.map(\.0), localOffsets: archive.entries.map { Int($0.localHeaderOffset) },
            centralOffsets: archive.entries.map { Int($0.centralHeaderOffset) },
            directoryOffset: Int(archive.centralDirectoryOffset))
    }

    /// Patches a field in both the local and the central header of entry `index`.
    package mutating func patchBoth<T: FixedWidthInteger & UnsignedInteger>(_ value: T, local: Int, central: Int, entry index: Int) {
        bytes.patch(value, at: localOffsets[index] + local)
        bytes.patch(value, at: centralOffsets[index] + central)
    }
}

extension Trait where Self == TimeLimitTrait {
    /// Fails a test that hangs. Generous: tests run in parallel on two cores and the clock also runs while a
    /// test waits for a thread, so this catches a reader stuck in a loop, not a slow machine; loops over
    /// many inputs also time each input (see `expectExactOrError`).
    package static var hangGuard: Self { .timeLimit(.minutes(5)) }
}
