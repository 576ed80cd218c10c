import Testing
@testable import AssetPackZip

/// The writer's duplicate-name check, in order, out of order, and once its hashes are in a set.
@Suite struct EntryNamesTests {
    @Test func aNameWrittenBeforeIsRefusedInEveryPhase() {
        var names = EntryNames()
        var added: [Bool] = []
        for name in ["a/", "a-b", "a.b", "a/b", "b"] { added.append(names.insert(name)) }
        added.append(!names.insert("a-b"))  // out of order: looked up among the ordered names
        added.append(names.insert("a"))  // a file beside the folder "a/" is another name
        added.append(!names.insert("a/"))
        for index in 0..<(EntryNames.setAfter + 5) { added.append(names.insert("0-\(index)")) }  // the set takes over
        for name in ["a.b", "0-3", "b"] { added.append(!names.insert(name)) }
        added.append(names.insert("0-x"))
        #expect(added.allSatisfy { $0 })
        #expect(added.count == 8 + EntryNames.setAfter + 5 + 4)
    }
}
