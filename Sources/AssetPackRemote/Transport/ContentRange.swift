import Foundation

/// A `Content-Range: bytes first-last/complete` header (RFC 9110, 14.4): which bytes a 206 response carries.
public struct ContentRange: Sendable, Equatable {
    /// The bytes carried, `first..<last + 1`.
    public var range: Range<UInt64>
    /// The length of the whole resource, when the server told it (`*` otherwise).
    public var completeLength: UInt64?

    /// A range of `range` bytes out of `completeLength`.
    public init(range: Range<UInt64>, completeLength: UInt64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses `bytes first-last/complete` or `bytes first-last/*`; nil for anything else, including the
    /// unsatisfied form `bytes */complete`, a last byte before the first, or one at or past the complete length.
    public init?(header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
              first <= last, last < UInt64.max else { return nil }
        var complete: UInt64?
        if halves[1] != "*" {
            guard let length = Self.number(halves[1]), last < length else { return nil }
            complete = length
        }
        self.init(range: first..<last + 1, completeLength: complete)
    }

    /// Digits only: no sign, no spaces, no empty string.
    private static func number(_ text: Substring) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }
}
