import AssetPackSystem

/// A relative path that is safe to create under a destination: it cannot hold `..`, `.`, empty
/// components, an absolute start, backslashes, drive letters, NUL or other control characters (C0, DEL
/// and C1), each component fits the platform's name limit, and the whole path fits ``maxPathBytes`` and
/// ``maxDepth``. Constructing one is the check (``init(_:)``); holding one is the proof.
///
/// A path is held as its one text `a/b/c` (``string``), not one string per component; ``components`` is
/// made when asked for, so code that runs per file reads the bytes instead (`withUTF8(_:)`, `componentCount`).
public struct AssetPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The path as `a/b/c`, "" for the root: the components joined by `/`, without a `/` at either end.
    public let string: String

    /// The longest component, in UTF-8 bytes (NAME_MAX on Linux and Apple platforms).
    public static let maxComponentBytes = 255
    /// The longest whole path, in UTF-8 bytes (PATH_MAX less room for the destination).
    public static let maxPathBytes = 3_072
    /// The deepest nesting accepted.
    public static let maxDepth = 128

    /// The root of a tree (no components).
    public static let root = AssetPath(validated: "")

    /// A path whose text has passed the checks (or is made of parts that have).
    init(validated text: String) { self.string = text }

    /// The components, each a valid file name (made on each call: per file, prefer the byte accessors).
    /// - Complexity: O(*n*) in the length of the path.
    public var components: [String] {
        if string.isEmpty { return [] }
        return withUTF8 { bytes in
            var parts: [String] = []
            parts.reserveCapacity(bytes.reduce(1) { $1 == AssetPath.slash ? $0 + 1 : $0 })
            var start = 0
            for index in bytes.indices where bytes[index] == AssetPath.slash {
                parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            parts.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return parts
        }
    }

    public var description: String { string }

    /// The last component, or "" for the root.
    public var name: String {
        guard let slash = lastSlash else { return string }
        return String(string[string.utf8.index(after: slash)...])
    }

    /// True for the root.
    public var isRoot: Bool { string.isEmpty }

    /// The first component, sharing the path's storage ("" for the root).
    package var firstComponent: Substring {
        let end = string.utf8.firstIndex(of: AssetPath.slash) ?? string.endIndex
        return string[..<end]
    }

    /// The parent path (the root's parent is the root).
    public var parent: AssetPath {
        guard let slash = lastSlash else { return .root }
        return AssetPath(validated: String(string[..<slash]))
    }

    /// How many components the path has (0 for the root), counted without making them.
    package var componentCount: Int {
        string.isEmpty ? 0 : withUTF8 { bytes in bytes.reduce(1) { $1 == AssetPath.slash ? $0 + 1 : $0 } }
    }

    /// True when `other` has the same parent folder, byte for byte (both top-level counts as the same).
    package func hasSameParent(as other: AssetPath) -> Bool {
        withUTF8 { mine in
            other.withUTF8 { theirs in
                let left = AssetPath.parentLength(mine), right = AssetPath.parentLength(theirs)
                return left == right && (left == 0 || Memory.equal(mine.baseAddress!, theirs.baseAddress!, count: left))
            }
        }
    }

    /// This path with one more component.
    /// - Throws: `.unsafePath` when `name` is not a valid single component, or the path would be nested
    ///   deeper than ``maxDepth`` or grow longer than ``maxPathBytes``.
    public func appending(_ name: String) throws(AssetPackError) -> AssetPath {
        if let reason = AssetPath.problem(with: name) {
            let place = isRoot ? "" : " in \(AssetPath.quoted(string))"
            throw AssetPackError(.unsafePath, "unsafe name \(AssetPath.quoted(name))\(place): \(reason)")
        }
        guard componentCount < AssetPath.maxDepth else {
            throw AssetPackError(.unsafePath, "\(AssetPath.quoted(string)) is nested deeper than \(AssetPath.maxDepth) levels")
        }
        let joined = isRoot ? name : string + "/" + name
        guard joined.utf8.count <= AssetPath.maxPathBytes else {
            throw AssetPackError(.unsafePath, "\(AssetPath.quoted(joined)) is longer than \(AssetPath.maxPathBytes) bytes")
        }
        return AssetPath(validated: joined)
    }

    /// This path with every component of `relative` appended: the same result and the same errors as
    /// appending them one by one, with one string made instead of one per component.
    /// - Throws: `.unsafePath` when the path would be nested deeper than ``maxDepth`` or grow longer than
    ///   ``maxPathBytes``.
    package func appending(_ relative: AssetPath) throws(AssetPackError) -> AssetPath {
        if relative.isRoot { return self }
        if isRoot { return relative }
        let joined = string + "/" + relative.string
        if componentCount + relative.componentCount <= AssetPath.maxDepth && joined.utf8.count <= AssetPath.maxPathBytes {
            return AssetPath(validated: joined)
        }
        var target = self  // over a limit: the component-wise walk words the error as before
        for component in relative.components { target = try target.appending(component) }
        return target
    }

    /// The `/` byte.
    static let slash = UInt8(ascii: "/")

    /// Where the last `/` is, nil for a top-level path or the root.
    private var lastSlash: String.Index? { string.utf8.lastIndex(of: AssetPath.slash) }

    /// Bytes of the parent's text at the start of a path's `bytes` (0 for a top-level path).
    private static func parentLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var end = bytes.count
        while end > 0 && bytes[end - 1] != slash { end -= 1 }
        return max(0, end - 1)
    }
}
