import ArgumentParser
import AssetPack

/// `assetpack uninstall DIR`: removes a tree that `expand` installed, and its record.
struct UninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove a tree that expand installed, its record and what an interrupted expand left beside it.",
        discussion: """
            Refuses a folder without an install record (.assetpack/identity) and a DIR that is a file or a \
            symbolic link: only a tree that assetpack installed is removed. Waits for an expand into the same \
            folder to finish. Links inside the tree are removed, never followed. Entries the record does not \
            know (put there by an app) are removed with the tree and listed. A DIR that does not exist is \
            not an error: nothing is installed there.

            Examples:
              assetpack uninstall data --dry-run
              assetpack uninstall data
            """
    )

    @Argument(help: ArgumentHelp("The destination folder (what expand --to named).", valueName: "DIR"))
    var destination: String

    @OptionGroup var dryRunOption: DryRunOption

    @OptionGroup var report: OutputOptions

    func run() throws {
        try Reporting.run {
            let dryRun = dryRunOption.dryRun
            let result = try InstalledTree.uninstall(at: destination, dryRun: dryRun)
            if report.json && dryRun {
                JSONReport.print(JSONFields(UninstallSummary.fields(result), DryRunMark()), command: "uninstall")
            } else if report.json {
                JSONReport.print(UninstallSummary.fields(result), command: "uninstall")
            } else if !report.quiet {
                print(Self.text(result, removed: dryRun ? "dry run: would remove" : "removed").joined(separator: "\n"))
            }
        }
    }

    /// The lines of the text report, each removal said with `removed`.
    static func text(_ result: UninstallResult, removed verb: String = "removed") -> [String] {
        var lines: [String] = []
        if result.identity != nil {
            let removed = "\(verb) \(result.destination): \(InstalledTreeText.files(result.files, result.bytes))"
            lines += result.unknown.isEmpty ? [Reporting.oneLine(removed)]
                : InstalledTreeText.list(removed + " with \(InstalledTreeText.entries(result.unknown.count)) that assetpack "
                                         + "did not install:", result.unknown)
        } else {
            lines.append(Reporting.oneLine("\(result.destination): not installed; nothing to remove"))
        }
        return lines + result.leftovers.map { Reporting.oneLine("\(verb) \($0), left by an interrupted expand") }
    }
}

/// What the `--json` line of `uninstall` adds beside the ``UninstallResult``'s own fields (whose paths are
/// absolute already).
struct UninstallSummary: Encodable {
    /// True when a tree was removed (not only leftovers).
    var removed: Bool

    /// The whole line's fields.
    static func fields(_ result: UninstallResult) -> JSONFields<UninstallResult, UninstallSummary> {
        JSONFields(result, UninstallSummary(removed: result.identity != nil))
    }
}
