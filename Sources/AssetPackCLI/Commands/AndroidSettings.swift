import AssetPackPacker

/// What `assetpack build --print-android-settings` prints after the summary: the Gradle and aapt settings
/// that put the bundle just built into an APK as it is.
///
/// Two settings matter. `noCompress` keeps the packed zips (or the one archive) stored in the APK, so the
/// app reads them in place instead of through a second layer of deflate (and old Android refused
/// compressed assets over 1 MiB). And aapt's default ignore list, `!.svn:!.git:!.ds_store:!*.scc:.*:<dir>_*:
/// !CVS:!thumbs.db:!picasa.ini:!*~`, leaves out every name starting with `.` (the bundle's `.assetpack`
/// folder, which holds its manifest) and every folder starting with `_`; ``ignorePattern`` is that list
/// without those two entries.
enum AndroidSettings {
    /// aapt's default ignore list without `.*` and `<dir>_*`.
    static let ignorePattern = "!.svn:!.git:!.ds_store:!*.scc:!CVS:!thumbs.db:!picasa.ini:!*~"

    /// The settings for the bundle `summary` describes.
    static func text(for summary: BuildSummary) -> String {
        let isArchive = summary.form == "archive"
        let name = summary.output.split(separator: "/").last.map(String.init) ?? summary.output
        let stored: String? = isArchive ? storedSuffix(of: name) : (summary.packed > 0 ? "zip" : nil)
        let keepsHidden = !isArchive || name.hasPrefix(".")
        var gradle: [String] = []
        var aapt: [String] = []
        if let stored {
            gradle.append("noCompress += \"\(stored)\"")
            aapt.append("-0 \(stored)")
        }
        if keepsHidden {
            gradle.append("ignoreAssetsPattern = \"\(ignorePattern)\"")
            aapt.append("--ignore-assets \"\(ignorePattern)\"")
        }
        let lines = ["Android: ship \(summary.output) in the app's assets with these settings.",
                     "  build.gradle.kts:",
                     "    android {",
                     "        androidResources {"]
            + gradle.map { "            " + $0 }
            + ["        }",
               "    }",
               "  aapt package: " + aapt.joined(separator: " ")]
            + why(summary, archiveName: name, keepsHidden: keepsHidden)
        return lines.joined(separator: "\n")
    }

    /// The file-name suffix `noCompress` and `-0` take for the archive `name`: its extension, or the
    /// whole name when it has none (both match the end of a path).
    static func storedSuffix(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else {
            return name
        }
        return String(name[name.index(after: dot)...])
    }

    /// The lines saying what each setting is for.
    private static func why(_ summary: BuildSummary, archiveName: String, keepsHidden: Bool) -> [String] {
        var lines: [String]
        if summary.form == "archive" {
            lines = ["  noCompress keeps \(archiveName) stored, so it is read in place."]
        } else if summary.packed == 1 {
            lines = ["  noCompress keeps its 1 packed zip stored, so it is read in place."]
        } else if summary.packed > 1 {
            lines = ["  noCompress keeps its \(summary.packed) packed zips stored, so they are read in place."]
        } else {
            lines = ["  Nothing is packed, so noCompress is not needed."]
        }
        if keepsHidden {
            let hidden = summary.form == "archive" ? "the archive" : "the bundle's .assetpack folder (its manifest)"
            lines += ["  ignoreAssetsPattern is aapt's default without \".*\" and \"<dir>_*\", which would leave out",
                      "  \(hidden) and any folder named _*."]
        }
        return lines
    }
}
