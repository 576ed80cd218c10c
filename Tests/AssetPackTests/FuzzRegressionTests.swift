// Names found by Tools/Fuzz (FuzzEntryName) that AssetPath once accepted. Each must now be refused.
import Testing
import AssetPack

@Suite struct AssetPathFuzzRegressionTests {
    /// "/" followed by a combining mark is one Character, so a Character-wise split or prefix test missed
    /// the slash: these escaped the destination (`..` component, absolute path) or hid a "/" in a component.
    @Test(arguments: [
        "../\u{301}x",          // ".." then "\u{301}x" on disk
        "/\u{301}etc/passwd",   // absolute on disk
        "a/../\u{301}b",        // ".." in the middle
        "a//\u{301}b",          // an empty component
        "\u{600}/../x",         // U+0600 is a prepended mark: "\u{600}/" is one Character
    ])
    func combiningSlashIsStillASlash(_ name: String) {
        #expect(throws: AssetPackError.self) { try AssetPath(name) }
    }

    @Test func componentsNeverHoldASlash() throws {
        let path = try AssetPath("x/\u{5BC}/y")
        #expect(path.components == ["x", "\u{5BC}", "y"])
        #expect(throws: AssetPackError.self) { try AssetPath.root.appending("../x") }
        #expect(throws: AssetPackError.self) { try AssetPath.root.appending("a/\u{301}b") }
    }
}
