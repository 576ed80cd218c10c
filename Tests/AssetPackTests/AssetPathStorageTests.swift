@testable import AssetPack
import Testing
import TestSupport

/// ``AssetPath`` keeps one string per path instead of one per component. These tests hold it to the
/// implementation it replaced (``ReferencePath``, the old code verbatim but for its name), over many odd
/// names: the same verdict and the same message for every text, and the same components, name, parent,
/// appending, equality, hashing and order for every accepted one.
@Suite struct AssetPathStorageTests {
    /// Pieces odd names are built from: the refused ones (`..`, NUL, controls, backslash, a drive letter,
    /// empty components, a leading `/`) and look-alikes that are fine (combining marks after `/` or `.`,
    /// C1 neighbours, `:` not after a letter, a Kelvin sign).
    static let pieces = ["a", "B", ".", "..", "...", "/", "//", "\\", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}",
                         "\u{9F}", "\u{A0}", "\u{C2}", "C:", "c:", "1:", ":", "\u{301}", "e\u{301}", "\u{E9}", "\u{212A}",
                         "\u{1F600}", "\u{600}", ".zip", ".ZIP", "x", " ", "-", ".assetpack", "assetpack-meta", "\u{FEFF}"]

    @Test func everyTextGetsTheOldVerdictAndMessage() {
        var random = SeededRandom(seed: 0xA55E7)
        for _ in 0..<40_000 {
            let text = (0..<(1 + Int(random.next() % 7))).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            compare(text)
        }
        for text in ["", "/", "a/", "a//", "./", "../", "a/b/", String(repeating: "x", count: 255), String(repeating: "x", count: 256),
                     String(repeating: "\u{E9}", count: 128), Array(repeating: "d", count: 128).joined(separator: "/"),
                     Array(repeating: "d", count: 129).joined(separator: "/"), Array(repeating: "d", count: 129).joined(separator: "/") + "/",
                     String(repeating: "p/", count: 1_536), String(repeating: "p", count: 3_072), String(repeating: "p", count: 3_073),
                     String(repeating: "p", count: 3_072) + "/", String(repeating: "\u{0}/", count: 200)] {
            compare(text)
        }
    }

    @Test func componentChecksMatch() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            let name = (0..<(Int(random.next() % 5))).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            #expect(AssetPath.problem(with: name) == ReferencePath.problem(with: name), "\(Array(name.unicodeScalars))")
        }
    }

    @Test func acceptedPathsBehaveAlike() throws {
        var random = SeededRandom(seed: 0x0DD)
        var pairs: [(AssetPath, ReferencePath)] = [(.root, .root)]
        while pairs.count < 3_000 {
            let text = (0..<(1 + Int(random.next() % 6))).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined()
            guard let path = try? AssetPath(text), let reference = try? ReferencePath(text) else { continue }
            pairs.append((path, reference))
        }
        for (path, reference) in pairs {
            #expect(path.components.map { Array($0.utf8) } == reference.components.map { Array($0.utf8) })
            #expect(Array(path.string.utf8) == Array(reference.string.utf8))
            #expect(Array(path.name.utf8) == Array(reference.name.utf8))
            #expect(Array(path.parent.string.utf8) == Array(reference.parent.string.utf8))
            #expect(path.isRoot == reference.isRoot)
            #expect(path.componentCount == reference.components.count)
            #expect(Array(path.firstComponent.utf8) == Array((reference.components.first ?? "").utf8))
            #expect(path.isZipArchiveName == (reference.name.utf8.count > 4 && reference.name.lowercased().hasSuffix(".zip")))
            for name in ["x", "..", "a\\b", "\u{301}"] {
                #expect(result { try path.appending(name).string } == result { try reference.appending(name).string })
            }
        }
        for _ in 0..<20_000 {
            let (a, ra) = pairs[Int(random.next() % UInt64(pairs.count))]
            let (b, rb) = pairs[Int(random.next() % UInt64(pairs.count))]
            #expect((a == b) == (ra == rb))
            #expect((a < b) == (ra < rb))
            #expect(a.hasSameParent(as: b) == (ra.parent == rb.parent))
            if a == b { #expect(a.hashValue == b.hashValue) }
            #expect(result { try a.appending(b).string } == result { try stepwise(a, b.components).string })
        }
    }

    @Test func limitsAreReachedWithTheOldMessages() throws {
        let deep = try AssetPath(Array(repeating: "d", count: 100).joined(separator: "/"))
        let deeper = try AssetPath(Array(repeating: "e", count: 40).joined(separator: "/"))
        let oneByOne = result { try stepwise(deep, deeper.components).string }
        #expect(result { try deep.appending(deeper).string } == oneByOne)
        let long = try AssetPath(Array(repeating: String(repeating: "p", count: 200), count: 10).joined(separator: "/"))
        #expect(result { try long.appending(long).string } == result { try stepwise(long, long.components).string })
        #expect(try deep.appending(.root) == deep)
        #expect(try AssetPath.root.appending(deep) == deep)
    }

    @Test func aPathMadeFromATextWithoutATrailingSlashSharesIt() throws {
        let text = "some/long/enough/path/to/be/on/the/heap.txt"
        let path = try AssetPath(text)
        #expect(path.string.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
                == text.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        #expect(try AssetPath(text + "/").string == text)
    }

    private func compare(_ text: String) {
        let new = result { try AssetPath(text).string }
        let old = result { try ReferencePath(text).string }
        #expect(new == old, "\(Array(text.unicodeScalars))")
    }

    private func result(_ body: () throws -> String) -> String {
        do {
            return "ok " + (try body())
        } catch let error as AssetPackError {
            return "refused " + error.message
        } catch let error as ReferenceRefusal {
            return "refused " + error.message
        } catch {
            return "other \(error)"
        }
    }

    /// `path` with `names` appended one at a time.
    private func stepwise(_ path: AssetPath, _ names: [String]) throws -> AssetPath {
        var path = path
        for name in names { path = try path.appending(name) }
        return path
    }
}

/// The error of ``ReferencePath``: the message ``AssetPackError`` would carry.
struct ReferenceRefusal: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// The ``AssetPath`` of commit f7d7ef6, one string per component, kept as the reference.

struct ReferencePath: Hashable, Comparable {
    let components: [String]

    static let maxComponentBytes = 255
    static let maxPathBytes = 3_072
    static let maxDepth = 128

    static let root = ReferencePath(validated: [])

    private init(validated components: [String]) { self.components = components }

    init(_ text: String) throws(ReferenceRefusal) {
        // Work on UTF-8 bytes, not Characters: "/" followed by a combining mark is one Character, so a
        // Character-wise split or prefix test would let "../\u{301}x" or "/\u{301}etc" through.
        let slash = UInt8(ascii: "/")
        var body = text.utf8[...]
        if body.last == slash { body = body.dropLast() }
        func refuse(_ reason: String) -> ReferenceRefusal {
            ReferenceRefusal("unsafe name \(ReferencePath.quoted(text)): \(reason)")
        }
        if text.utf8.first == slash { throw refuse("absolute path") }
        if body.isEmpty {
            self.init(validated: [])
            return
        }
        if body.count > Self.maxPathBytes { throw refuse("longer than \(Self.maxPathBytes) bytes") }
        let parts = body.split(separator: slash, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if parts.count > Self.maxDepth { throw refuse("nested deeper than \(Self.maxDepth) levels") }
        for part in parts {
            if let reason = ReferencePath.problem(with: part) { throw refuse(reason) }
        }
        self.init(validated: parts)
    }

    static func problem(with name: String) -> String? {
        if name.isEmpty { return "empty path component" }
        if name == "." || name == ".." { return "'\(name)' component" }
        if name.utf8.count > maxComponentBytes { return "component longer than \(maxComponentBytes) bytes" }
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0: return "NUL byte"
            case 0x01...0x1F, 0x7F...0x9F: return "control character"
            case 0x5C: return "backslash"
            case 0x2F: return "slash in a component"
            default: continue
            }
        }
        if name.utf8.count >= 2, name.utf8.dropFirst().first == UInt8(ascii: ":"),
           name.unicodeScalars.first.map({ ("A"..."Z").contains($0) || ("a"..."z").contains($0) }) == true {
            return "drive letter"
        }
        return nil
    }

    var string: String { components.joined(separator: "/") }
    var description: String { string }

    var name: String { components.last ?? "" }

    var isRoot: Bool { components.isEmpty }

    var parent: ReferencePath { ReferencePath(validated: Array(components.dropLast())) }

    func appending(_ name: String) throws(ReferenceRefusal) -> ReferencePath {
        if let reason = ReferencePath.problem(with: name) {
            let place = components.isEmpty ? "" : " in \(ReferencePath.quoted(string))"
            throw ReferenceRefusal("unsafe name \(ReferencePath.quoted(name))\(place): \(reason)")
        }
        guard components.count < ReferencePath.maxDepth else {
            throw ReferenceRefusal("\(ReferencePath.quoted(string)) is nested deeper than \(ReferencePath.maxDepth) levels")
        }
        let length = components.reduce(name.utf8.count) { $0 + $1.utf8.count + 1 }
        guard length <= ReferencePath.maxPathBytes else {
            throw ReferenceRefusal("\(ReferencePath.quoted(string + "/" + name)) is longer than \(ReferencePath.maxPathBytes) bytes")
        }
        return ReferencePath(validated: components + [name])
    }

    static func == (lhs: ReferencePath, rhs: ReferencePath) -> Bool {
        lhs.components.count == rhs.components.count
            && zip(lhs.components, rhs.components).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    func hash(into hasher: inout Hasher) {
        for component in components {
            hasher.combine(component.utf8.count)
            for byte in component.utf8 { hasher.combine(byte) }
        }
    }

    static func < (lhs: ReferencePath, rhs: ReferencePath) -> Bool {
        for (left, right) in zip(lhs.components, rhs.components) where !left.utf8.elementsEqual(right.utf8) {
            return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
        return lhs.components.count < rhs.components.count
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += ["\t": "\\t", "\n": "\\n", "\r": "\\r"][scalar]
                    ?? "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
