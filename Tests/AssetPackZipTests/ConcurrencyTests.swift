import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// Problems found on other threads, collected under a lock.
final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) { lock.withLock { messages.append(message) } }
    var all: [String] { lock.withLock { messages } }
}

/// One archive read from many threads.
@Suite struct ConcurrencyTests {
    /// 16 entries, deflated and stored, text and noise, some larger than one read buffer.
    static func makeArchive(in directory: TemporaryDirectory) throws -> (String, [String: [UInt8]]) {
        var random = SeededRandom(seed: 808)
        var contents: [String: [UInt8]] = [:]
        let path = directory.file("shared.zip")
        let writer = try ZipWriter(path: path, options: .deterministic())
        for index in 0..<16 {
            let name = "entry-\(index).\(index.isMultiple(of: 2) ? "txt" : "bin")"
            let size = 10_000 + index * 37_000
            let bytes = index.isMultiple(of: 2) ? random.text(size) : random.bytes(size)
            contents[name] = bytes
            try writer.addFile(name, contents: bytes, method: index % 4 == 1 ? .stored : .deflate)
        }
        try writer.finish(sync: false)
        return (path, contents)
    }

    @Test(.hangGuard)
    func eightThreadsReadDifferentAndSameEntries() throws {
        let directory = try TemporaryDirectory("concurrent")
        let (path, contents) = try Self.makeArchive(in: directory)
        let archive = try ZipArchive(path: path)
        let failures = FailureLog()
        let shared = try archive.requireEntry(named: "entry-6.txt")
        let check: @Sendable (ZipEntry, Int) -> Void = { entry, thread in
            do {
                let bytes = try readEntry(archive, entry, chunk: 4_099 + thread, bufferSize: 8_192 * (thread + 1))
                if bytes != contents[entry.name] { failures.add("thread \(thread): \(entry.name) differs") }
            } catch {
                failures.add("thread \(thread): \(error)")
            }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<4 {
                // Each thread walks the entries from a different start, then reads the one entry everyone reads.
                for step in 0..<archive.entries.count {
                    check(archive.entries[(thread * 2 + step + round) % archive.entries.count], thread)
                }
                check(shared, thread)
            }
        }
        #expect(failures.all == [])
    }

    @Test(.hangGuard)
    func taskGroupReadsWithVerify() async throws {
        let directory = try TemporaryDirectory("concurrent-tasks")
        let (path, contents) = try Self.makeArchive(in: directory)
        let archive = try ZipArchive(path: path)
        let results = try await withThrowingTaskGroup(of: (String, Bool).self) { group in
            for task in 0..<8 {
                group.addTask {
                    let entry = archive.entries[task * 2]
                    try archive.verify()
                    return (entry.name, try archive.contents(of: entry) == contents[entry.name])
                }
            }
            var results: [String: Bool] = [:]
            for try await (name, ok) in group { results[name] = ok }
            return results
        }
        #expect(results.count == 8)
        #expect(results.values.allSatisfy { $0 })
    }
}
