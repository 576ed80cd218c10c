import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// Entries read one after another with the same ``ZipReadBuffers``: in archive order they come from
/// 256 KiB reads of the archive; in any order, and alternating between archives, every entry still
/// yields exactly its own bytes.
@Suite struct ReadBuffersTests {
    /// An archive of `count` small entries (stored and deflated), some larger than the input buffer.
    static func archive(_ path: String, count: Int, seed: UInt64) throws -> [String: [UInt8]] {
        var random = SeededRandom(seed: seed)
        let writer = try ZipWriter(path: path, options: .deterministic())
        var expected: [String: [UInt8]] = [:]
        for number in 0..<count {
            let size = number % 97 == 0 ? 300_000 : 10 + number * 37 % 3_000
            let bytes = number % 3 == 0 ? random.bytes(size) : random.text(size)
            let name = "f\(number).bin"
            try writer.addFile(name, contents: bytes, method: number % 2 == 0 ? .stored : .deflate)
            expected[name] = bytes
        }
        try writer.finish()
        return expected
    }

    static func read(_ entry: ZipEntry, of archive: ZipArchive, with buffers: ZipReadBuffers) throws -> [UInt8] {
        try archive.open(entry, buffers: buffers).readAll()
    }

    @Test func inOrderReverseAndAlternatingArchivesAllReadTheirOwnBytes() throws {
        let dir = try TemporaryDirectory("read-buffers")
        let first = try Self.archive(dir.file("a.zip"), count: 400, seed: 1)
        let second = try Self.archive(dir.file("b.zip"), count: 200, seed: 2)
        let a = try ZipArchive(path: dir.file("a.zip")), b = try ZipArchive(path: dir.file("b.zip"))
        let buffers = ZipReadBuffers()
        for entry in a.entries { #expect(try Self.read(entry, of: a, with: buffers) == first[entry.name], "\(entry.name)") }
        for entry in a.entries.reversed() { #expect(try Self.read(entry, of: a, with: buffers) == first[entry.name]) }
        for (left, right) in zip(a.entries, b.entries) {
            #expect(try Self.read(left, of: a, with: buffers) == first[left.name])
            #expect(try Self.read(right, of: b, with: buffers) == second[right.name])
        }
    }

    @Test func aDamagedEntryInAWindowIsStillCaught() throws {
        let dir = try TemporaryDirectory("read-buffers-damage")
        let expected = try Self.archive(dir.file("a.zip"), count: 50, seed: 3)
        var bytes = try fileBytes(dir.file("a.zip"))
        let clean = try ZipArchive(path: dir.file("a.zip"))
        let victim = clean.entries[20]
        bytes[Int(victim.localHeaderOffset) + 30 + victim.name.utf8.count + 3] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("a.zip")))
        let archive = try ZipArchive(path: dir.file("a.zip"))
        let buffers = ZipReadBuffers()
        for entry in archive.entries {
            if entry.name == victim.name {
                #expect(throws: ZipError.self) { try Self.read(entry, of: archive, with: buffers) }
            } else {
                #expect(try Self.read(entry, of: archive, with: buffers) == expected[entry.name])
            }
        }
    }
}
