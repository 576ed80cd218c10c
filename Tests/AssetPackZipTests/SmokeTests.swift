import Testing
import Foundation
@testable import AssetPackZip

@Test func writeThenReadRoundTrip() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("smoke-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("a.zip").path
    let writer = try ZipWriter(path: path, options: .deterministic())
    try writer.addDirectory("docs")
    try writer.addFile("docs/a.txt", contents: Array("hello hello hello hello".utf8))
    try writer.addFile("docs/b.bin", contents: [UInt8](repeating: 7, count: 100_000), method: .stored)
    try writer.addFile("日本語.txt", from: MemoryStream(Array("こんにちは".utf8)), size: nil)
    try writer.finish()
    let archive = try ZipArchive(path: path)
    #expect(archive.entries.map(\.name) == ["docs/", "docs/a.txt", "docs/b.bin", "日本語.txt"])
    #expect(try archive.contents(of: archive.requireEntry(named: "docs/a.txt")) == Array("hello hello hello hello".utf8))
    #expect(try archive.contents(of: archive.requireEntry(named: "日本語.txt")) == Array("こんにちは".utf8))
    #expect(archive.contentsOfDirectory("") == ["docs", "日本語.txt"])
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
    p.arguments = ["-t", path]
    try p.run(); p.waitUntilExit()
    #expect(p.terminationStatus == 0)
}
