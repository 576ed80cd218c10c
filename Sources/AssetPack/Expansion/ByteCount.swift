/// Byte counts for people: `512 bytes`, `3.4 KiB`, `12.0 MiB`, `1.50 GiB`.
public enum ByteCount {
    /// `bytes` in the largest binary unit that keeps the number at least 1.
    public static func text(_ bytes: UInt64) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = (value * 10).rounded() / 10
        return "\(tenths) \(units[unit])"
    }
}
