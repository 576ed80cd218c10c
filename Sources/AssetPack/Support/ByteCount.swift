/// Byte counts for people, the one format of the package: `812 B`, `1.5 KiB`, `4.0 MiB`, `1.2 GiB`; and
/// sizes as a person writes them on a command line: `1048576`, `512K`, `4M`, `1G`.
package enum ByteCount {
    /// `bytes` in the largest binary unit that keeps the number at least 1, with one decimal.
    package static func text(_ bytes: UInt64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// The number of bytes `text` denotes, or nil when it is not a size (negative, fractional, overflowing).
    /// Binary multiples (K = 1,024), optionally followed by `B` or `iB` (`512KiB`, `4MB`), in any case;
    /// `0` is zero.
    package static func parse(_ text: String) -> UInt64? {
        var body = Substring(text.uppercased())
        if body.hasSuffix("IB") { body.removeLast(2) } else if body.hasSuffix("B") { body.removeLast() }
        var multiplier: UInt64 = 1
        if let unit = body.last, let shift = ["K": 10, "M": 20, "G": 30, "T": 40][unit] {
            multiplier = 1 << UInt64(shift)
            body.removeLast()
        }
        guard !body.isEmpty, body.allSatisfy(\.isASCII), let number = UInt64(body) else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
