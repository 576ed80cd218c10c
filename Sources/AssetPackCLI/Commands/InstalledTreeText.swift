import AssetPack
import Foundation

/// How `status`, `uninstall` and `expand --verify` show an installed tree as text: lists of entries under a heading,
/// and times in ISO 8601 (UTC).
enum InstalledTreeText {
    /// `heading`, then each entry on its own indented line (control characters escaped: names may be hostile).
    static func list(_ heading: String, _ entries: [String], indent: String = "  ") -> [String] {
        [Reporting.oneLine(heading)] + entries.map { indent + Reporting.oneLine($0) }
    }

    /// `N entry` or `N entries`.
    static func entries(_ count: Int) -> String { counted(count, "entry", "entries") }

    /// `N files (SIZE)`.
    static func files(_ count: Int, _ bytes: UInt64) -> String {
        counted(count, "file") + " (\(ByteCount.text(bytes)))"
    }

    /// `2025-01-31T12:00:00Z`.
    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}
