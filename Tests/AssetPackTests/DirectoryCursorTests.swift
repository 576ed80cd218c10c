import AssetPackSystem
import Foundation
import Testing
import TestSupport

/// The folder cursor that writers keep between files: it reuses the folders it has open only for names that
/// are the same bytes. Two spellings Swift's `==` equates (`é` precomposed and decomposed) are two folders
/// on Linux, and a file meant for one must never land in the other.
@Suite struct DirectoryCursorTests {
    @Test func canonicallyEquivalentNamesAreTwoFolders() throws {
        let scratch = try TemporaryDirectory("directory-cursor")
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && composed.utf8.count != decomposed.utf8.count)
        let root = try Descriptor.directory(scratch.path)
        #expect(try root.makeDirectory(composed, mode: 0o755))
        #expect(try root.makeDirectory(decomposed, mode: 0o755))
        let cursor = DirectoryCursor(root: root)
        _ = try cursor.directory([composed]).createFile("in-composed")
        _ = try cursor.directory([decomposed]).createFile("in-decomposed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file(composed)) == ["in-composed"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.file(decomposed)) == ["in-decomposed"])
    }
}
