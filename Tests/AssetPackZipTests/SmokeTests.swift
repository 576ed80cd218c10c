import Testing
import Foundation
import TestSupport
@testable import AssetPackZip

@Test func writeThenReadRoundTrip() throws {
    let dir = try TemporaryDirectory("smoke")
    let path = dir.file("a.zip")
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
    try ExternalTool.unzip.require()
    let tested = try run("unzip", ["-t", path])
    #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
}
