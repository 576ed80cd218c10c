import Foundation
import TestSupport

/// Real APKs from a folder of assets, built by Android's own packaging tools: `aapt package` (Android 10's
/// aapt) with a minimal manifest, then `zipalign -p 4` as every release build does.
enum APKBuilder {
    static let aapt = ExternalTool("aapt", package: "aapt")
    static let zipalign = ExternalTool("zipalign", package: "zipalign")

    /// How aapt is asked to package.
    struct Options {
        /// Extensions aapt stores instead of deflating (`-0 EXT`, the `noCompress` of Gradle).
        var noCompress: [String] = ["bin"]
        /// aapt's `--ignore-assets` pattern; nil keeps aapt's default, which drops names starting with `.`
        /// and folders starting with `_`.
        var ignoreAssets: String? = nil
        /// `zipalign -p 4` after aapt, as every release build does; false leaves aapt's layout as it is.
        var aligned = true
    }


    /// Packages the folder `assets` into the aligned APK `apk`; returns what aapt said on stderr (the
    /// names it skipped). Call `try ExternalTool.require(APKBuilder.aapt, APKBuilder.zipalign)` first.
    @discardableResult
    static func build(assets: String, to apk: String, options: Options = Options()) throws -> String {
        let scratch = try TemporaryDirectory("apk")
        let manifest = try scratch.write("AndroidManifest.xml", text: """
            <?xml version="1.0" encoding="utf-8"?>
            <manifest package="org.assetpack.tests"></manifest>
            """)
        var arguments = ["package", "-f", "-M", manifest, "-A", assets, "-F", scratch.file("unaligned.apk")]
        for ext in options.noCompress { arguments += ["-0", ext] }
        if let pattern = options.ignoreAssets { arguments += ["--ignore-assets", pattern] }
        let packaged = try run("aapt", arguments)
        guard packaged.status == 0 else { throw ShimFailure("aapt failed: \(packaged.stderr)") }
        if options.aligned {
            try align(scratch.file("unaligned.apk"), to: apk)
        } else {
            try FileManager.default.copyItem(atPath: scratch.file("unaligned.apk"), toPath: apk)
        }
        return packaged.stderr
    }

    /// `zipalign -p 4` of `input` into `output`, checked with `zipalign -c`.
    static func align(_ input: String, to output: String) throws {
        let aligned = try run("zipalign", ["-f", "-p", "4", input, output])
        guard aligned.status == 0 else { throw ShimFailure("zipalign failed: \(aligned.stderr)") }
        let checked = try run("zipalign", ["-c", "-p", "4", output])
        guard checked.status == 0 else { throw ShimFailure("zipalign -c failed: \(checked.stdout)\(checked.stderr)") }
    }
}
