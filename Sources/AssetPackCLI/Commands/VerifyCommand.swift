import ArgumentParser
import AssetPackZip

/// `assetpack verify ARCHIVE`: read every entry and check its size and CRC-32.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Read every entry of a zip archive and check sizes and CRC-32; exit non-zero at the first bad entry."
    )

    @OptionGroup var archive: ArchiveArgument

    @OptionGroup var report: ReportOptions

    func run() throws {
        try Reporting.run {
            let opened = try ZipArchive(path: archive.path)
            let bytes = try opened.verify()
            if !report.quiet {
                print("\(archive.path): OK, \(opened.entries.count) entries, \(bytes) bytes verified")
            }
        }
    }
}
