import ArgumentParser
import AssetPack
import AssetPackPacker
import Foundation

/// `assetpack build SRC [-o OUT | --archive OUT.zip]`: pack an asset folder into a bundle.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Pack an asset folder into a bundle: files over the threshold become zips, the rest are copied.",
        discussion: """
            OUT mirrors SRC: a file larger than the threshold, path/big.bin, becomes path/big.bin.zip holding \
            one entry big.bin (deflated, or stored when deflate would not save), smaller files are copied byte \
            for byte, and assetpack-meta/manifest.json describes every file and folder. Files over 4 MiB are \
            deflated in independent blocks on every core, and the manifest records where the blocks start so \
            expansion can use every core too. The same tree always gives the same bytes. A bundle already at \
            OUT lends its archives for files that did not change. With --archive, every file is deflated into \
            one zip (stored when deflate would not save), whatever the threshold.
            """
    )

    @Argument(help: "The asset folder to pack.")
    var source: String

    @Option(name: [.short, .customLong("output")], help: "The bundle folder to write (default: assets.bundle in the current directory).")
    var output: String?

    @Option(help: ArgumentHelp("Write the whole tree as ONE zip instead of a folder.", valueName: "OUT.zip"))
    var archive: String?

    @Option(help: ArgumentHelp("Pack files larger than this: 512K, 4M, 1048576; 0 packs every file.", valueName: "SIZE"))
    var threshold: String = "1048576"

    @Option(help: "Deflate level 0–9 (0 stores packed files).")
    var level: Int = 6

    @OptionGroup var jobs: JobsOption

    @Flag(help: "Follow symbolic links (anywhere they point) instead of refusing them.")
    var followSymlinks = false

    @OptionGroup(title: "Leaving files out") var exclude: ExcludeOptions

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @OptionGroup var report: ReportOptions

    @Flag(help: "Also print the Gradle and aapt settings that ship this bundle in an Android app as it is.")
    var printAndroidSettings = false

    func validate() throws {
        guard ByteCount.parse(threshold) != nil else {
            throw ValidationError("--threshold \(threshold) is not a size (examples: 512K, 4M, 1048576, 0).")
        }
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0 to 9, not \(level).") }
        guard output == nil || archive == nil else { throw ValidationError("Give either -o/--output or --archive, not both.") }
        guard !(json && printAndroidSettings) else { throw ValidationError("--print-android-settings prints text; leave out --json.") }
    }

    func run() throws {
        let options = BuildOptions(rules: PackingRules(threshold: ByteCount.parse(threshold) ?? PackingRules.defaultThreshold,
                                                       level: level),
                                   followSymlinks: followSymlinks, jobs: jobs.count ?? BuildOptions.defaultJobs,
                                   exclusions: try exclude.exclusions())
        let bar = ProgressBar.onTerminal(unless: report.quiet)
        try Reporting.run {
            defer { bar?.clear() }
            let summary = if let archive {
                try ArchivePacker(options: options).build(source: source, output: archive, progress: bar?.update)
            } else {
                try Packer(options: options).build(source: source, output: output ?? "assets.bundle", progress: bar?.update)
            }
            bar?.clear()
            if json {
                print(summary.json())
            } else if !report.quiet {
                print(summary.text)
            }
            if printAndroidSettings { print(AndroidSettings.text(for: summary)) }
        }
    }
}
