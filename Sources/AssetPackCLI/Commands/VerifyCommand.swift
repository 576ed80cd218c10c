import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip

/// `assetpack verify ARCHIVE`: read every entry of a zip and check its size and CRC-32; or, for a bundle
/// folder, every file against the manifest and every entry of its packed archives (``BundleVerification``).
struct VerifyCommand: ArchiveReadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Read every entry of a zip archive and check sizes and CRC-32, or every file of a bundle folder against its manifest and every entry of its packed archives; exit non-zero at the first bad one.",
        discussion: """
            Examples:
              assetpack verify assets.bundle
              curl -s https://example.com/app.zip | assetpack verify -
            """
    )

    @OptionGroup var archive: ArchiveArgument

    @OptionGroup var report: OutputOptions

    func run(bundleFolder folder: String) throws {
        let summary = try BundleVerification.verify(DirectorySource(root: folder))
        if report.json {
            JSONReport.print(JSONFields(summary, VerifyReport(bundle: JSONReport.absolute(folder))), command: "verify")
        } else if !report.quiet {
            print("\(folder): OK, \(counted(summary.files, "file")), \(summary.bytes) bytes and "
                  + "\(counted(summary.archives, "packed archive")) (\(counted(summary.archiveEntries, "entry", "entries")))"
                  + (summary.patches > 0 ? " and \(counted(summary.patches, "patch", "patches"))" : "")
                  + " verified against \(summary.manifest)")
        }
    }

    func run(zip: ZipArchive) throws {
        let bytes = try zip.verify()
        if report.json {
            JSONReport.print(VerifyReport(archive: JSONReport.absolute(archive.path), entries: zip.entryCount, bytes: bytes),
                             command: "verify")
        } else if !report.quiet {
            print("\(archive.path): OK, \(zip.entryCount) entries, \(bytes) bytes verified")
        }
    }
}

/// What the `--json` line of `verify` holds beside a bundle's ``BundleVerification/Summary``: the bundle folder;
/// or, for a zip, the archive, its entries and their bytes, all verified.
struct VerifyReport: Encodable {
    var bundle: String?
    var archive: String?
    var entries: Int?
    var bytes: UInt64?
}
