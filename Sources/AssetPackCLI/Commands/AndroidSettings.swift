import AssetPack
import AssetPackPacker

/// What `assetpack build --print-android-settings` prints after the summary: the Gradle and aapt settings
/// that put the bundle just built into an APK as it is.
///
/// `noCompress` keeps the packed zips stored in the APK, so the app reads them in place (without it aapt
/// deflates any asset that shrinks; old Android refused compressed assets over 1 MiB). An ignore list is
/// given only when aapt's default (``AaptIgnoreList/defaultPattern``) would leave out a name of this bundle
/// (a folder named `_*` or `.*`): the default without the entries that match, naming what each would drop.
enum AndroidSettings {
    /// The settings for the bundle `summary` describes; a folder bundle's names are read from its manifest.
    static func text(for summary: BuildSummary) -> String {
        let name = summary.output.split(separator: "/").last.map(String.init) ?? summary.output
        let drops: [(entry: AaptIgnoreList.Entry, path: String)]
        var zips: Int?
        if summary.form == "archive" {
            drops = AaptIgnoreList.default.drops(in: [(name, false)])
        } else {
            let manifest = try? BundleManifest.read(from: DirectorySource(root: summary.output))
            drops = manifest.map { AaptIgnoreList.default.drops(inBundle: $0, named: name) } ?? []
            zips = manifest.map { Set($0.entries.compactMap { $0.storage?.form == .packed ? $0.storage?.file : nil }).count }
        }
        return text(for: summary, name: name, drops: drops, zips: zips)
    }

    /// The settings for the bundle `summary` describes, named `name`, of which aapt's default list drops `drops`;
    /// `zips` is how many zip archives hold its packed files, when known.
    static func text(for summary: BuildSummary, name: String, drops: [(entry: AaptIgnoreList.Entry, path: String)],
                     zips: Int? = nil) -> String {
        let isArchive = summary.form == "archive"
        let stored: String? = isArchive ? storedSuffix(of: name) : (summary.packed > 0 ? "zip" : nil)
        let pattern = drops.isEmpty ? nil : AaptIgnoreList.default.removing(drops.map(\.entry)).pattern
        var gradle: [String] = []
        var aapt: [String] = []
        if let stored {
            gradle.append("noCompress += \"\(stored)\"")
            aapt.append("-0 \(stored)")
        }
        if let pattern {
            gradle.append("ignoreAssetsPattern = \"\(pattern)\"")
            aapt.append("--ignore-assets \"\(pattern)\"")
        }
        let settings = gradle.isEmpty
            ? ["Android: ship \(summary.output) in the app's assets; it needs no settings."]
            : ["Android: ship \(summary.output) in the app's assets with these settings.",
               "  build.gradle.kts:",
               "    android {",
               "        androidResources {"]
                + gradle.map { "            " + $0 }
                + ["        }",
                   "    }",
                   "  aapt package: " + aapt.joined(separator: " ")]
        return (settings + why(summary, archiveName: name, drops: drops, zips: zips)).joined(separator: "\n")
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
    private static func why(_ summary: BuildSummary, archiveName: String,
                            drops: [(entry: AaptIgnoreList.Entry, path: String)], zips: Int?) -> [String] {
        var lines: [String]
        if summary.form == "archive" {
            lines = ["  noCompress keeps \(archiveName) stored, so it is read in place."]
        } else if summary.packed > 0 && zips == 1 {
            lines = ["  noCompress keeps its 1 packed zip stored, so it is read in place."]
        } else if summary.packed > 0 {
            // aapt deflates a zip that still shrinks (a pack archive of stored members does).
            let count = zips.map { "\($0) " } ?? ""
            lines = ["  noCompress keeps its \(count)packed zips stored, so they are read in place."]
        } else {
            lines = ["  Nothing is packed, so noCompress is not needed."]
        }
        if !drops.isEmpty {
            let entries = drops.map { "\"\($0.entry.text)\"" }
            let paths = drops.map(\.path)
            lines += ["  ignoreAssetsPattern is aapt's default without \(listed(entries)), which would leave out",
                      "  \(listed(paths))."]
        } else if summary.form != "archive" {
            lines += ["  aapt's default ignore list keeps every name of the bundle, its \(BundleManifest.reservedDirectory) folder included."]
        }
        return lines
    }

    /// `a`, `a and b`, `a, b and c`.
    private static func listed(_ items: [String]) -> String {
        items.count <= 1 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
