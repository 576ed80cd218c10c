import Foundation

/// A relative path that is safe to create under a destination: it cannot hold `..`, `.`, empty
/// components, an absolute start, backslashes, drive letters, NUL or other control characters (C0, DEL
/// and C1), each component fits the platform's name limit, and the whole path fits ``maxPathBytes`` and
/// ``maxDepth``. Constructing one is the check; holding one is the proof.
public struct AssetPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The components, each a valid file name.
    public let components: [String]

    /// The longest component, in UTF-8 bytes (NAME_MAX on Linux and Apple platforms).
    public static let maxComponentBytes = 255
    /// The longest whole path, in UTF-8 bytes (PATH_MAX less room for the destination).
    public static let maxPathBytes = 3_072
    /// The deepest nesting accepted.
    public static let maxDepth = 128

    /// The root of a tree (no components).
    public static let root = AssetPath(validated: [])

    private init(validated components: [String]) { self.components = components }

    /// Validates `text` ("a/b/c.txt"; one trailing `/` is allowed for directories).
    /// - Throws: ``AssetPackError`` with code `.unsafePath` saying which rule the name broke.
    public init(_ text: String) throws(AssetPackError) {
        // Work on UTF-8 bytes, not Characters: "/" followed by a combining mark is one Character, so a
        // Character-wise split or prefix test would let "../\u{301}x" or "/\u{301}etc" through.
        let slash = UInt8(ascii: "/")
        var body = text.utf8[...]
        if body.last == slash { body = body.dropLast() }
        func refuse(_ reason: String) -> AssetPackError {
            AssetPackError(.unsafePath, "unsafe name \(AssetPath.quoted(text)): \(reason)")
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
            if let reason = AssetPath.problem(with: part) { throw refuse(reason) }
        }
        self.init(validated: parts)
    }

    /// Why `name` cannot be one path component, or nil when it can.
    public static func problem(with name: String) -> String? {
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

    /// The path as `a/b/c`, "" for the root.
    public var string: String { components.joined(separator: "/") }
    public var description: String { string }

    /// The last component, or "" for the root.
    public var name: String { components.last ?? "" }

    /// True for the root.
    public var isRoot: Bool { components.isEmpty }

    /// The parent path (the root's parent is the root).
    public var parent: AssetPath { AssetPath(validated: Array(components.dropLast())) }

    /// This path with one more component.
    /// - Throws: `.unsafePath` when `name` is not a valid single component, or the path would be nested
    ///   deeper than ``maxDepth`` or grow longer than ``maxPathBytes``.
    public func appending(_ name: String) throws(AssetPackError) -> AssetPath {
        if let reason = AssetPath.problem(with: name) {
            throw AssetPackError(.unsafePath, "unsafe name \(AssetPath.quoted(name)) in \(AssetPath.quoted(string)): \(reason)")
        }
        guard components.count < AssetPath.maxDepth else {
            throw AssetPackError(.unsafePath, "\(AssetPath.quoted(string)) is nested deeper than \(AssetPath.maxDepth) levels")
        }
        let length = components.reduce(name.utf8.count) { $0 + $1.utf8.count + 1 }
        guard length <= AssetPath.maxPathBytes else {
            throw AssetPackError(.unsafePath, "\(AssetPath.quoted(string + "/" + name)) is longer than \(AssetPath.maxPathBytes) bytes")
        }
        return AssetPath(validated: components + [name])
    }

    /// Equal when the bytes are equal: two Unicode spellings of "café" are different files on most file
    /// systems, so they are different paths here (Swift's `String ==` would call them equal).
    public static func == (lhs: AssetPath, rhs: AssetPath) -> Bool {
        lhs.components.count == rhs.components.count
            && zip(lhs.components, rhs.components).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    /// Hashes the UTF-8 bytes, consistent with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        for component in components {
            hasher.combine(component.utf8.count)
            for byte in component.utf8 { hasher.combine(byte) }
        }
    }

    /// Orders by UTF-8 bytes, component by component (a stable, locale-free order).
    public static func < (lhs: AssetPath, rhs: AssetPath) -> Bool {
        for (left, right) in zip(lhs.components, rhs.components) where !left.utf8.elementsEqual(right.utf8) {
            return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
        return lhs.components.count < rhs.components.count
    }

    /// Bytes whose plain lexicographic order is the order of ``<(_:_:)``: the UTF-8 path with each `/`
    /// as a zero byte, which no component holds (so a component sorts before its own extensions, and a
    /// path before the paths below it). Sorting many paths by these keys with `memcmp` is several times
    /// faster than comparing them component by component.
    var orderKey: [UInt8] {
        var key: [UInt8] = []
        for component in components {
            if !key.isEmpty { key.append(0) }
            key.append(contentsOf: component.utf8)
        }
        return key
    }

    /// True when `left` sorts before `right` (two ``orderKey``s).
    static func precedes(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        left.withUnsafeBufferPointer { a in
            right.withUnsafeBufferPointer { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
    }

    /// A name in quotes with control characters escaped, safe to print.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
