#if canImport(Darwin)
import Foundation
#endif

/// Marks an expanded tree as excluded from iCloud and iTunes backups on Apple platforms (the files can
/// be expanded again from the app's bundle, so backing them up only wastes the user's quota). The flag is
/// set on the staging tree's root before the switch and moves with it.
///
/// On Apple platforms this sets `URLResourceValues.isExcludedFromBackup`; elsewhere it does nothing.
/// It is compiled only on Darwin and cannot be tested on Linux, where the project's tests run.
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
