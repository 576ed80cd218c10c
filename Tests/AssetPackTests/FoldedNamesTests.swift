@testable import AssetPack
import Foundation
import Testing
import TestSupport

/// The plan's name table (``FoldedNames``) must find exactly the names ``PlanBuilder/foldedKey(_:)``
/// equates: case and normalization twins, an ASCII name and a name that only folds to ASCII, across
/// growth of the table, and nothing else.
@Suite struct FoldedNamesTests {
    @Test(arguments: [
        ("a/B.txt", "A/b.TXT"),
        ("caf\u{E9}/x", "cafe\u{301}/x"),
        ("\u{212A}.txt", "k.txt"),  // KELVIN SIGN: NFC makes it "K", which lowercases to ASCII "k"
        ("x/\u{C9}T\u{C9}", "x/e\u{301}t\u{E9}"),
    ])
    func twinsAreRefusedInEitherOrder(_ first: String, _ second: String) throws {
        for (one, other) in [(first, second), (second, first)] {
            var builder = PlanBuilder(source: "assets")
            try builder.add(ExpansionItem(path: try AssetPath(one), kind: .file, permissions: 0o644), from: "test")
            let error = #expect(throws: AssetPackError.self) {
                try builder.add(ExpansionItem(path: try AssetPath(other), kind: .file, permissions: 0o644), from: "test")
            }
            #expect(error?.code == .conflict)
            #expect(error?.message.contains("differ only in case or Unicode normalization") == true, "\(String(describing: error))")
        }
    }

    @Test func manyNamesFoldAsTheKeysSay() throws {
        var random = SeededRandom(seed: 0xF01D)
        let letters = ["a", "A", "b", "\u{E9}", "e\u{301}", "\u{C9}", "\u{212A}", "k", "K", "/", "z"]
        var names = FoldedNames()
        var items: [ExpansionItem] = []
        var keys: [[UInt8]: Int] = [:]
        for _ in 0..<20_000 {
            let text = (0..<(1 + Int(random.next() % 6))).map { _ in letters[Int(random.next() % UInt64(letters.count))] }.joined()
            guard let path = try? AssetPath(text) else { continue }
            let key = Array(PlanBuilder.foldedKey(path).utf8)
            switch names.find(path, in: items) {
            case .found(let position):
                #expect(keys[key] == position, "\(text)")
            case .absent(let slot):
                #expect(keys[key] == nil, "\(text)")
                keys[key] = items.count
                names.insert(slot, position: items.count)
                items.append(.directory(path))
            }
        }
        #expect(items.count == keys.count)
        #expect(items.count > 1_000)  // the table grew many times
    }

    @Test func aFolderAddedTwiceIsOneItemAndImpliedFoldersComeFirst() throws {
        var builder = PlanBuilder(source: "assets")
        try builder.add(.directory(try AssetPath("a/b")), from: "test")
        try builder.add(.directory(try AssetPath("a/b/")), from: "test")
        try builder.add(ExpansionItem(path: try AssetPath("a/b/c/d.txt"), kind: .file, permissions: 0o644), from: "test")
        try builder.add(ExpansionItem(path: try AssetPath("a/b/c/e.txt"), kind: .file, permissions: 0o644), from: "test")
        #expect(builder.takeWindow().map(\.path.string) == ["a", "a/b", "a/b/c", "a/b/c/d.txt", "a/b/c/e.txt"])
    }
}
