#if canImport(Darwin)
import Foundation
#endif

/// Marks an expanded tree as excluded from iCloud and iTunes backups (it can be expanded again from the
/// app): `URLResourceValues.isExcludedFromBackup` on the staging tree's root before the switch. Does nothing
/// off Apple platforms (so the Linux tests never run it).
enum BackupExclusion {
    /// Sets the flag on the folder at `path`; a failure is ignored (the tree is still correct).
    static func apply(to path: String) {
        #if canImport(Darwin)
        var url = URL(fileURLWithPath: path, isDirectory: true)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        try? url.setResourceValues(values)
        #endif
    }
}
