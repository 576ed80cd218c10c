import AssetPackZip
import Foundation
import Testing
import TestSupport

/// The writer keeps its central directory out of memory: past 1 MiB it goes to an unlinked file beside
/// the archive, which leaves nothing behind.
@Suite struct CentralDirectorySpoolTests {
    @Test func aDirectoryPastTheMemoryLimitIsWholeAndLeavesNoFile() throws {
        let dir = try TemporaryDirectory("central-spool")
        let path = dir.file("many.zip")
        let writer = try ZipWriter(path: path, options: .deterministic())
        let count = 24_000  // about 1.4 MiB of central records
        for index in 0..<count {
            try writer.addFile("folder/entry-\(index).txt", contents: Array("\(index)".utf8), method: .stored)
        }
        let duplicate = #expect(throws: ZipError.self) {
            try writer.addFile("folder/entry-7.txt", contents: [1], method: .stored)
        }
        #expect(duplicate?.code == .invalidArgument)
        try writer.finish()
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["many.zip"])
        let archive = try ZipArchive(path: path)
        #expect(archive.entries.count == count)
        #expect(archive.entries.map(\.name) == (0..<count).map { "folder/entry-\($0).txt" })
        #expect(try archive.contents(of: archive.entries[count - 1]) == Array("\(count - 1)".utf8))
    }
}
