@testable import AssetPack
import Testing

/// ``PlanWindowBuilder``: the items of a tree that comes folder by folder, window by window, are those of a
/// whole plan; anything that may collide, or a folder that comes back after it was left, is left undecided
/// (for the whole plan to word).
@Suite struct PlanWindowBuilderTests {
    static func file(_ path: String) throws -> ExpansionItem {
        ExpansionItem(path: try AssetPath(path), kind: .file, size: 1, permissions: 0o644)
    }

    static func directory(_ path: String) throws -> ExpansionItem { .directory(try AssetPath(path)) }

    /// The items added, taken in windows of `size`, and the folders open at each handover.
    static func windows(_ items: [ExpansionItem], size: Int) throws -> (items: [ExpansionItem], open: [[String]], undecided: Bool) {
        var builder = PlanWindowBuilder(source: "assets")
        var taken: [ExpansionItem] = [], open: [[String]] = []
        for item in items {
            try builder.add(item, from: "test")
            if builder.items.count >= size {
                taken += builder.takeWindow()
                open.append(builder.openFolders.map(\.string))
            }
        }
        taken += builder.takeWindow()
        return (taken, open, builder.isUndecided)
    }

    static let sorted = ["a.txt", "d", "d/e/f.txt", "d/e/g.txt", "d/h.txt", "d-x/i.txt", "m/n/o/p.txt", "z.txt"]

    @Test(arguments: [1, 2, 3, 100])
    func windowsHoldTheItemsOfAWholePlan(size: Int) throws {
        let items = try Self.sorted.map { $0 == "d" ? try Self.directory($0) : try Self.file($0) }
        var whole = PlanBuilder(source: "assets")
        for item in items { try whole.add(item, from: "test") }
        let expected = whole.takeWindow()
        let windowed = try Self.windows(items, size: size)
        #expect(!windowed.undecided)
        #expect(windowed.items.map(\.path.string) == expected.map(\.path.string))
        #expect(windowed.items.map(\.kind) == expected.map(\.kind))
        #expect(windowed.items.map(\.permissions) == expected.map(\.permissions))
    }

    @Test func theOpenFoldersAreThoseOfTheLastItem() throws {
        let items = try ["d/e/f.txt", "d/e/g.txt", "d/h.txt"].map(Self.file)
        let windowed = try Self.windows(items, size: 3)  // d, d/e, d/e/f.txt | d/e/g.txt, d/h.txt
        #expect(windowed.open.first == ["d", "d/e"])
    }

    @Test(arguments: [
        ["a/x.txt", "b.txt", "a/y.txt"],  // a folder met again after it was left
        ["a/x/1.txt", "a/y.txt", "a/x/2.txt"],  // a subfolder met again
        ["a.txt", "a.txt"],  // twice
        ["b.txt", "a.txt", "b.txt"],  // twice, out of order
        ["A/x.txt", "B.txt", "a/y.txt"],  // folders that differ in case, windows apart
        ["A.txt", "B.txt", "a.txt"],  // files that differ in case
        ["a", "a/b.txt"],  // a file and a folder of one name
        ["cafe\u{301}.txt", "caf\u{E9}.txt"],  // decomposed and composed (in byte order)
    ])
    func whatMayCollideIsUndecided(_ paths: [String]) throws {
        let windowed = try Self.windows(try paths.map(Self.file), size: 1)
        #expect(windowed.undecided)
    }

    /// The order `zip -r` writes: a folder's entries as the file system lists them, each subfolder where
    /// it is met. The items are the whole plan's, in that order.
    @Test(arguments: [1, 2, 5])
    func aTreeThatComesFolderByFolderInAnyOrderIsDecided(size: Int) throws {
        let paths = ["z.txt", "m/n/o/p.txt", "d", "d/h.txt", "d/e/g.txt", "d/e/f.txt", "d-x/i.txt", "a.txt"]
        let items = try paths.map { $0 == "d" ? try Self.directory($0) : try Self.file($0) }
        var whole = PlanBuilder(source: "assets")
        for item in items { try whole.add(item, from: "test") }
        let expected = whole.takeWindow()
        let windowed = try Self.windows(items, size: size)
        #expect(!windowed.undecided)
        #expect(Set(windowed.items.map(\.path.string)) == Set(expected.map(\.path.string)))
        #expect(windowed.items.count == expected.count)
        // Every folder comes before what it holds.
        for (position, item) in windowed.items.enumerated() where !item.path.parent.isRoot {
            #expect(windowed.items[..<position].contains { $0.path == item.path.parent })
        }
    }

    /// The order `bsdtar` writes: a folder's subfolders stated first, each filled after. A folder left empty
    /// is entered again once; one left after something was added to it, or stated twice, is undecided.
    @Test func aFolderStatedBeforeItsContentsIsEnteredAgain() throws {
        let breadthFirst = try [Self.directory("a"), Self.directory("b"), Self.directory("a/c"), Self.file("a/x.txt"),
                                Self.file("a/c/y.txt"), Self.file("b/z.txt")]
        for size in [1, 2, 100] {
            let windowed = try Self.windows(breadthFirst, size: size)
            #expect(!windowed.undecided)
            #expect(windowed.items.map(\.path.string) == ["a", "b", "a/c", "a/x.txt", "a/c/y.txt", "b/z.txt"])
        }
        #expect(try Self.windows([Self.directory("a"), Self.directory("b"), Self.file("a/x.txt"), Self.file("b/y.txt"),
                                  Self.file("a/z.txt")], size: 1).undecided, "a entered a third time")
        #expect(try Self.windows([Self.directory("a"), Self.directory("b"), Self.directory("a")], size: 1).undecided)
        #expect(try Self.windows([Self.directory("a"), Self.directory("b"), Self.file("A/x.txt")], size: 1).undecided)
        #expect(try Self.windows([Self.directory("cafe\u{301}"), Self.directory("b"), Self.file("caf\u{E9}/x.txt")], size: 1).undecided)
    }

    @Test func namesAlikeInDifferentFoldersAreNoCollision() throws {
        let windowed = try Self.windows(try ["a/x.txt", "a/y/x.txt", "b/X.txt", "b/x"].map(Self.file), size: 1)
        #expect(!windowed.undecided)
        #expect(windowed.items.count == 7)
    }

    @Test func reservedNamesAndTheTotalAreRefusedAsByAWholePlan() throws {
        var builder = PlanWindowBuilder(source: "assets")
        #expect(throws: AssetPackError.self) { try builder.add(try Self.file(".assetpack/x"), from: "test") }
        var limited = PlanWindowBuilder(source: "assets", maxTotalBytes: 1)
        try limited.add(try Self.file("a"), from: "test")
        let error = #expect(throws: AssetPackError.self) { try limited.add(try Self.file("b"), from: "test") }
        #expect(error?.code == .limitExceeded)
    }
}
