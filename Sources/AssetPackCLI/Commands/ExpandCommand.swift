import ArgumentParser
import AssetPack
import AssetPackSystem
import Foundation

/// `assetpack expand [<bundle>] --to <dir>`: put a bundle, an asset folder or an archive on storage the
/// way an app does at first launch — staged, verified, switched in atomically, resumable, and a no-op when
/// the destination is already up to date.
struct ExpandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expand",
        abstract: "Expand a bundle, an asset folder or a zip/APK onto storage, as an app does at first launch.",
        discussion: """
            <bundle> is a packed bundle folder (its manifest says which archives to unzip), a plain asset \
            folder, or a zip archive made by any tool (an APK, a jar; --root picks a folder inside it). In a \
            tree without a manifest every .zip file is unzipped, one level, into its parent folder \
            (binary/photos.zip holding photos/frog.jpg gives binary/photos/frog.jpg) unless --keep-zips.

            The tree is built beside <dir> and switched in at once; <dir> keeps its previous complete state \
            on any error. A run that is interrupted (Ctrl-C, a crash) is resumed by the next one. When <dir> \
            already holds this bundle the command says so and exits at once. On a terminal a progress line, \
            never wider than the terminal, shows the bytes, the files (n/N), the rate, the time left and the \
            file being written (--progress: also on a log, a line at most once a second).

            Examples:
              assetpack expand app/assets.bundle --to ~/Library/Assets
              assetpack expand app.apk --root assets/data --to data --dry-run
              cat app.zip | assetpack expand - --to data
              assetpack expand app.bundle --to data --verify
            """
    )

    @Argument(help: ArgumentHelp("The packed bundle folder, asset folder, or zip/APK archive (- reads a zip from stdin).", valueName: "bundle"),
              completion: .file())
    var bundle: String = "assets.bundle"

    @Option(name: [.customShort("d"), .customShort("C"), .customLong("to")],
            help: ArgumentHelp("The folder to create or update.", valueName: "dir"), completion: .directory)
    var destination: String

    @Option(help: ArgumentHelp("The folder inside the archive or folder where the tree starts (e.g. assets/data of an APK).",
                               discussion: "Without it, a zip that holds a bundle only below its top (an APK's assets/app.bundle) expands that bundle; one of several must be named.",
                               valueName: "prefix"))
    var root: String?

    @Flag(help: "Copy .zip files of a tree without a manifest as they are instead of unzipping them.")
    var keepZips = false

    @Flag(help: "Create symbolic-link entries of archives (only links that stay inside <dir>).")
    var allowSymlinks = false

    @Flag(help: "Expand a tree that holds no file (by default that is an error: a misspelt --root, an empty source).")
    var allowEmpty = false

    @Flag(help: ArgumentHelp("On an upgrade, remove what <dir> holds that assetpack did not write, and list it.",
                             discussion: "By default such files and folders (put there by the app or by hand) are kept: carried into the new version and listed."))
    var deleteUnknown = false

    @Flag(help: ArgumentHelp("On an upgrade, change <dir> itself: write only what changed instead of switching in a whole new tree.",
                             discussion: "Writes a fraction of what a switch writes for a small upgrade of many files, but while the changes are applied (after the download and checks) <dir> holds a mix of both versions; it is marked not installed first, and an interrupted upgrade is finished by the next expand, whatever its options."))
    var inPlace = false

    @OptionGroup var jobs: JobsOption

    @OptionGroup var dryRunOption: DryRunOption

    @Flag(name: .customLong("no-sync"),
          help: ArgumentHelp("Do not flush the tree to the disk before recording it complete: faster, still safe if the process is killed, not if the power fails.",
                             discussion: "By default the expanded tree is flushed (fsync) before its record is written, as an app's first launch must do."))
    var noSync = false

    @OptionGroup var report: OutputOptions

    @OptionGroup var progressOption: ProgressOption

    @OptionGroup var verbose: VerboseOption

    @OptionGroup(title: "A bundle on a server (an https:// URL)") var remote: RemoteOptions

    func validate() throws {
        try verbose.check(quiet: report.quiet, json: report.json)
        try progressOption.check(quiet: report.quiet, json: report.json)
        try remote.check(bundle: bundle, root: root, verify: verify || repair)
        try RootOption.check(root)
        if dryRunOption.dryRun && (verify || repair) {
            throw ValidationError("--dry-run is for an expand: --verify already changes nothing, and --repair is a --verify first.")
        }
        if verify && !repair, let option = [(deleteUnknown, "--delete-unknown"), (inPlace, "--in-place"), (noSync, "--no-sync"),
                                             (verbose.verbose, "--verbose")].first(where: \.0)?.1 {
            throw ValidationError("--verify changes nothing; \(option) is for an expand or a --repair.")
        }
    }

    @Flag(help: ArgumentHelp("Read every installed file again and compare it with the install record and the source; change nothing.",
                             discussion: "Lists the entries that differ and exits 1 when any does or when <dir> does not hold the source's version, 0 otherwise. Entries the record does not know are listed, not counted."))
    var verify = false

    @Flag(help: ArgumentHelp("Check as --verify does, then write again what differs (or install, when <dir> holds another version).",
                             discussion: "Only the entries that differ are written again, through the same staging and atomic switch; the report lists them, and the entries the record does not know (kept, or removed with --delete-unknown)."))
    var repair = false

    func run() throws {
        Reporting.context.interruptedHint = "interrupted; run the same command again to resume"
        let line = ProgressLine.onTerminal(unless: report.quiet || report.json, forced: progressOption.progress)
        let cancellation = ExpansionCancellation()
        Interrupt.handle(stop: { cancellation.cancel() })
        try Reporting.run {
            if RemoteOptions.isURL(bundle) {
                if dryRunOption.dryRun { return try preview(previewRemote(options())) }
                let result = try installRemote(options(), progress: progress(line, cancellation))
                line?.clear()
                return report(result)
            }
            let installer = try installer()
            if dryRunOption.dryRun { return try preview(installer.dryRun()) }
            if repair { return try repair(installer, line: line, cancellation: cancellation) }
            if verify { return try check(installer) }
            let result = try installer.installSynchronously(progress: progress(line, cancellation), cancellation: cancellation)
            line?.clear()
            report(result)
        }
    }

    private func installer() throws(AssetPackError) -> AssetInstaller {
        // With --json every path is absolute, in the messages too.
        let source = try AssetSources.container(path: report.json ? JSONReport.absolute(bundle) : bundle, root: root)
        return try AssetInstaller(source: source, destination: destination, options: options())
    }

    private func options() -> ExpansionOptions {
        var options = ExpansionOptions(keepZips: keepZips, allowSymlinks: allowSymlinks, jobs: jobs.count ?? ExpansionOptions.defaultJobs,
                                       durability: noSync ? .none : .flushOnCommit, allowsEmpty: allowEmpty)
        options.removesUnknownEntries = deleteUnknown
        options.upgradesInPlace = inPlace
        options.testSeam = .fromEnvironment()
        return options
    }

    /// The progress callback: the terminal line, the `--verbose` listing, the interrupt test seam.
    private func progress(_ line: ProgressLine?, _ cancellation: ExpansionCancellation) -> @Sendable (ExpansionProgress) -> Void {
        let listing = verbose.verbose ? WrittenFiles(line: line) : nil
        let seam = Interrupt.TestSeam()
        return { progress in
            line?.update(progress)
            listing?.note(progress)
            seam.check(filesDone: progress.filesWritten) { cancellation.isCancelled }
        }
    }

    func report(_ result: ExpansionResult) {
        if report.json {
            let source = RemoteOptions.isURL(bundle) ? bundle : JSONReport.absolute(bundle)
            JSONReport.print(ExpandReport.fields(result, source: source, root: root), command: "expand")
        } else if report.quiet {
            return
        } else if result.upToDate {
            print("\(result.destination) is up to date")
        } else {
            var text = "expanded \(counted(result.files, "file")) (\(ByteCount.text(result.bytes))) into \(result.destination)"
            text += String(format: " in %.2f s", result.seconds)
            let reused = [result.filesLinked > 0 ? "\(result.filesLinked) unchanged" : nil,
                          result.bytesResumed > 0 ? "\(ByteCount.text(result.bytesResumed)) resumed" : nil].compactMap { $0 }
            if !reused.isEmpty { text += " (\(reused.joined(separator: ", ")), \(result.filesWritten) written)" }
            print(text)
            if !result.unknownKept.isEmpty { print(InstallEvent.keptUnknown(paths: result.unknownKept).description) }
            if !result.unknownDeleted.isEmpty { print(InstallEvent.removedUnknown(paths: result.unknownDeleted).description) }
        }
    }
}

/// `--verbose`: each file written, by its path in the tree, one a line, as it is finished.
final class WrittenFiles: @unchecked Sendable {
    private let line: ProgressLine?
    private var written = 0  // reports come one at a time

    init(line: ProgressLine?) { self.line = line }

    /// Prints the file of `progress` when it is one more file written.
    func note(_ progress: ExpansionProgress) {
        guard progress.filesWritten > written, let path = progress.path else { return }
        written = progress.filesWritten
        let text = Reporting.oneLine(path.string)
        if let line { line.printAbove(text) } else { print(text) }
    }
}

/// What the `--json` line of `expand` (schema 1) adds beside the ``ExpansionResult``'s own fields (every
/// figure of the text line, and the identity recorded): where the tree came from.
struct ExpandReport: Encodable {
    /// The bundle, folder or archive expanded, absolute.
    var source: String
    /// `--root`, when given.
    var root: String?

    /// The whole line's fields: `result`'s, its seconds rounded to microseconds, and the source's.
    static func fields(_ result: ExpansionResult, source: String, root: String?) -> JSONFields<ExpansionResult, ExpandReport> {
        var shown = result
        shown.seconds = (result.seconds * 1_000_000).rounded() / 1_000_000
        return JSONFields(shown, ExpandReport(source: source, root: root))
    }
}
