import ArgumentParser
import AssetPack
import AssetPackPacker
import AssetPackRemote
import Foundation

/// `assetpack build <source> [-o <dir> | --archive <file>]`: pack an asset folder into a bundle.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Pack an asset folder into a bundle: files over the threshold become zips, files of 64 KiB or less "
            + "go into pack archives, the others are copied.",
        discussion: """
            <dir> mirrors <source>: a file larger than the threshold, path/big.bin, becomes path/big.bin.zip holding \
            one entry big.bin (deflated, or stored when deflate would not save), smaller files are copied byte \
            for byte — except files of 64 KiB or less, which are gathered into pack archives of about 1 MiB in \
            assetpack-meta/packs/ (--pack-limit), so that many small files expand from a few reads — and \
            assetpack-meta/manifest.json describes every file and folder. Packed files over 256 KiB are cut \
            into content-defined chunks of about 64 KiB, each deflated on its own on every core, and the manifest \
            records where each chunk starts and its SHA-256, so expansion uses every core too and an update \
            from a server fetches only the chunks it does not hold. The same tree always gives the same bytes. A bundle already at \
            <dir> lends its archives for files that did not change. With --archive, every file is deflated into \
            one zip (stored when deflate would not save), whatever the threshold.

            Examples:
              assetpack build assets -o app/assets.bundle
              assetpack build assets --dry-run
              assetpack build assets --archive assets.zip --exclude '*.psd'
            """
    )

    @Argument(help: ArgumentHelp("The asset folder to pack.", valueName: "source"), completion: .directory)
    var source: String

    @Option(name: [.short, .customLong("output")],
            help: ArgumentHelp("The bundle folder to write (default: assets.bundle in the current directory).", valueName: "dir"),
            completion: .directory)
    var output: String?

    @Option(help: ArgumentHelp("Write the whole tree as ONE zip instead of a folder.", valueName: "file"),
            completion: .file(extensions: ["zip"]))
    var archive: String?

    @Option(help: ArgumentHelp("Pack files larger than this: 512K, 4M, 1048576; 0 packs every file.", valueName: "size"))
    var threshold: String = "1048576"

    @Option(help: ArgumentHelp("Deflate level, 0 to 9 (0 stores packed files).", valueName: "n"))
    var level: Int = 6

    @Option(help: ArgumentHelp("Deflate level of files in pack archives, 0 to 9: 0 stores them (fastest first launch), "
                               + "6 makes the bundle smaller.", valueName: "n"))
    var packLevel: Int = 0

    @Option(help: ArgumentHelp("Gather files up to this size into pack archives: 64K, 0 copies every small file.",
                               valueName: "size"))
    var packLimit: String = "65536"

    @Option(help: ArgumentHelp("Average size of the content-defined chunks packed files are cut into, a power of two from 4K "
                               + "to 16M: smaller chunks make smaller updates after scattered edits, larger ones a smaller bundle.",
                               valueName: "size"))
    var chunkSize: String = "64K"

    @OptionGroup var jobs: JobsOption

    @Flag(help: "Follow symbolic links (anywhere they point) instead of refusing them.")
    var followSymlinks = false

    @OptionGroup(title: "Leaving files out") var exclude: ExcludeOptions

    @OptionGroup var dryRunOption: DryRunOption

    @OptionGroup var report: OutputOptions

    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var verbose: VerboseOption

    @Flag(help: "Also print the Gradle and aapt settings that ship this bundle in an Android app as it is.")
    var printAndroidSettings = false

    @Flag(help: ArgumentHelp("Name every archive and plain file by the SHA-256 of its bytes in "
                             + "assetpack-meta/objects/, for a server: a new version only adds names, so a CDN "
                             + "may cache them for ever (only the identity, manifest and signature change)."))
    var immutableNames = false

    @Flag(help: ArgumentHelp("Write no patches: by default a build over the previous bundle at -o gives each changed file "
                             + "patches from that version (assetpack-meta/patches/), which an update from it fetches "
                             + "instead of the changed chunks."))
    var noPatches = false

    @Option(help: ArgumentHelp("Sign the bundle's manifest with this private key (from `assetpack keygen`): writes "
                               + "assetpack-meta/manifest.sig, which `expand URL --public-key` requires.", valueName: "keyfile"),
            completion: .file())
    var sign: String?

    /// The chunking `--chunk-size` names; nil for a size that is not a power of two in range.
    var chunking: ContentChunking? {
        guard let size = ByteCount.parse(chunkSize), size > 0, size & (size - 1) == 0 else { return nil }
        return ContentChunking(averageBits: size.trailingZeroBitCount)
    }

    func validate() throws {
        guard ByteCount.parse(threshold) != nil else {
            throw ValidationError("--threshold \(threshold) is not a size (examples: 512K, 4M, 1048576, 0).")
        }
        guard ByteCount.parse(packLimit) != nil else {
            throw ValidationError("--pack-limit \(packLimit) is not a size (examples: 64K, 16K, 0).")
        }
        guard chunking != nil else {
            throw ValidationError("--chunk-size \(chunkSize) is not a power of two from 4K to 16M (examples: 16K, 64K, 256K).")
        }
        guard (0...9).contains(level) else { throw ValidationError("--level must be 0 to 9, not \(level).") }
        guard (0...9).contains(packLevel) else { throw ValidationError("--pack-level must be 0 to 9, not \(packLevel).") }
        guard output == nil || archive == nil else { throw ValidationError("Give either -o/--output or --archive, not both.") }
        if let option = [(archive, "--archive"), (output, "-o")].first(where: { $0.0 == "-" })?.1 {
            throw ValidationError("\(option) -: a build is written into a temporary file renamed to its name when complete, "
                                  + "never to stdout; give a name (and cat the zip into a pipe).")
        }
        guard !(report.json && printAndroidSettings) else { throw ValidationError("--print-android-settings prints text; leave out --json.") }
        guard sign == nil || archive == nil else { throw ValidationError("--sign signs a bundle folder; leave out --archive.") }
        guard !noPatches || archive == nil else { throw ValidationError("--no-patches is about a bundle folder; leave out --archive.") }
        guard !immutableNames || archive == nil else {
            throw ValidationError("--immutable-names names a bundle folder's files; leave out --archive.")
        }
        try verbose.check(quiet: report.quiet, json: report.json)
        try progressOption.check(quiet: report.quiet, json: report.json)
    }

    func run() throws {
        var rules = PackingRules(threshold: ByteCount.parse(threshold) ?? PackingRules.defaultThreshold, level: level)
        rules.packMemberLimit = ByteCount.parse(packLimit) ?? rules.packMemberLimit
        rules.packLevel = packLevel
        rules.chunking = chunking ?? .standard
        var options = BuildOptions(rules: rules,
                                   followSymlinks: followSymlinks, jobs: jobs.count ?? BuildOptions.defaultJobs,
                                   exclusions: try exclude.exclusions())
        options.immutableNames = immutableNames
        options.writesPatches = !noPatches
        let line = ProgressLine.onTerminal(unless: report.quiet || report.json, forced: progressOption.progress)
        Interrupt.handle(stop: nil)
        try Reporting.run {
            // With --json every path is absolute, in the messages too.
            let json = report.json
            func path(_ given: String) -> String { json ? JSONReport.absolute(given) : given }
            if dryRunOption.dryRun { return preview(try Packer(options: options).preview(
                source: path(source), output: path(archive ?? output ?? "assets.bundle"), archive: archive != nil)) }
            let key = try sign.map { (file) throws(AssetPackError) in try SigningKey(contentsOf: file) }  // before building
            let summary = if let archive {
                try Packer(options: options).buildArchive(source: path(source), output: path(archive), progress: progress(line))
            } else {
                try Packer(options: options).build(source: path(source), output: path(output ?? "assets.bundle"), progress: progress(line))
            }
            if let key { try BundleSigning.sign(bundle: summary.output, with: key) }
            line?.clear()
            if report.json {
                // Every figure of the text summary, its paths absolute.
                var shown = summary
                (shown.source, shown.output) = (JSONReport.absolute(summary.source), JSONReport.absolute(summary.output))
                JSONReport.print(shown.report, command: "build")
            } else if !report.quiet {
                print(summary.text)
            }
            if printAndroidSettings { print(AndroidSettings.text(for: summary)) }
        }
    }

    /// Prints what `--dry-run` found the build would write.
    private func preview(_ preview: BuildPreview) {
        if report.json { return JSONReport.print(JSONFields(preview, DryRunMark()), command: "build") }
        guard !report.quiet else { return }
        let tree = counted(preview.files, "file") + ", " + counted(preview.directories, "folder")
            + " (\(ByteCount.text(preview.bytes)) before packing)"
        print(Reporting.oneLine("dry run: build would write \(preview.output) from \(preview.source)"))
        print(preview.form == "archive" ? "  \(tree) in one zip"
              : "  \(tree): \(preview.copied) copied, \(preview.packed) in a zip of its own, "
                + "\(preview.gathered) gathered into \(counted(preview.packs, "pack archive"))")
    }

    /// The progress callback: the terminal line, the `--verbose` listing, the interrupt test seam.
    private func progress(_ line: ProgressLine?) -> @Sendable (BuildProgress) -> Void {
        let listing = verbose.verbose
        let seam = Interrupt.TestSeam()
        return { progress in
            line?.update(progress)
            if listing {
                let text = Reporting.oneLine(progress.path)
                if let line { line.printAbove(text) } else { print(text) }
            }
            seam.check(filesDone: progress.filesDone)
        }
    }
}
