import ArgumentParser
import AssetPack
import AssetPackSystem
import Foundation

/// `assetpack expand [BUNDLE] --to DIR`: put a bundle, an asset folder or an archive on storage the way an
/// app does at first launch — staged, verified, switched in atomically, resumable, and a no-op when the
/// destination is already up to date.
struct ExpandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expand",
        abstract: "Expand a bundle, an asset folder or a zip/APK onto storage, as an app does at first launch.",
        discussion: """
            BUNDLE is a packed bundle folder (its manifest says which archives to unzip), a plain asset folder, \
            or a zip archive made by any tool (an APK, a jar; --root picks a folder inside it). In a tree \
            without a manifest every .zip file is unzipped, one level, into its parent folder \
            (binary/photos.zip holding photos/frog.jpg gives binary/photos/frog.jpg) unless --keep-zips.

            The tree is built beside DIR and switched in at once; DIR keeps its previous complete state on \
            any error. A run that is interrupted is resumed by the next one. When DIR already holds this \
            bundle the command says so and exits at once.
            """
    )

    @Argument(help: "The packed bundle folder, asset folder, or zip/APK archive.")
    var bundle: String = "assets.bundle"

    @Option(name: .customLong("to"), help: ArgumentHelp("The folder to create or update.", valueName: "DIR"))
    var destination: String

    @Option(help: ArgumentHelp("The folder inside the archive or folder where the tree starts (e.g. assets/data of an APK).",
                               valueName: "PREFIX"))
    var root: String?

    @Flag(help: "Copy .zip files of a tree without a manifest as they are instead of unzipping them.")
    var keepZips = false

    @Flag(help: "Create symbolic-link entries of archives (only links that stay inside DIR).")
    var allowSymlinks = false

    @OptionGroup var jobs: JobsOption

    @Flag(name: .customLong("no-sync"),
          help: ArgumentHelp("Do not flush the tree to the disk before recording it complete: faster, still safe if the process is killed, not if the power fails.",
                             discussion: "By default the expanded tree is flushed (syncfs) before its record is written, as an app's first launch must do."))
    var noSync = false

    @OptionGroup var report: ReportOptions

    @Flag(help: "Print a JSON summary: files, bytes, seconds, upToDate, destination.")
    var json = false

    func run() throws {
        let bar = ProgressBar.onTerminal(unless: report.quiet || json)
        try Reporting.run {
            let source = try AssetSources.container(path: bundle, root: root)
            var options = ExpansionOptions(keepZips: keepZips, allowSymlinks: allowSymlinks, jobs: jobs.count ?? ExpansionOptions.defaultJobs,
                                           durability: noSync ? .none : .flushOnCommit)
            options.testSeam = .fromEnvironment()
            let installer = try AssetInstaller(source: source, destination: destination, options: options)
            let result: ExpansionResult
            do {
                result = try installer.installSynchronously { progress in
                    bar?.update(progress)
                }
            } catch {
                bar?.clear()
                throw error
            }
            bar?.clear()
            report(result)
        }
    }

    private func report(_ result: ExpansionResult) {
        if json {
            print(ExpandSummary(result).json())
        } else if report.quiet {
            return
        } else if result.upToDate {
            print("\(result.destination) is up to date")
        } else {
            var line = "expanded \(result.files) files (\(ByteCount.text(result.bytes))) into \(result.destination)"
            line += String(format: " in %.2f s", result.seconds)
            let reused = [result.filesLinked > 0 ? "\(result.filesLinked) unchanged" : nil,
                          result.bytesResumed > 0 ? "\(ByteCount.text(result.bytesResumed)) resumed" : nil].compactMap { $0 }
            if !reused.isEmpty { line += " (\(reused.joined(separator: ", ")), \(result.filesWritten) written)" }
            print(line)
        }
    }
}

/// The `--json` summary.
struct ExpandSummary: Encodable {
    var destination: String
    var upToDate: Bool
    var files: Int
    var bytes: UInt64
    var filesWritten: Int
    var bytesWritten: UInt64
    var filesResumed: Int
    var bytesResumed: UInt64
    var seconds: Double

    init(_ result: ExpansionResult) {
        destination = result.destination
        upToDate = result.upToDate
        files = result.files
        bytes = result.bytes
        filesWritten = result.filesWritten
        bytesWritten = result.bytesWritten
        filesResumed = result.filesResumed
        bytesResumed = result.bytesResumed
        seconds = (result.seconds * 1_000_000).rounded() / 1_000_000
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
