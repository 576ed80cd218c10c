import AssetPack

/// `assetpack expand … --dry-run`: what an expand would write, link and remove (``AssetInstaller/dryRun()``).
extension ExpandCommand {
    /// Prints `preview`.
    func preview(_ preview: InstallPreview) {
        if report.json {
            let source = ExpandReport(source: RemoteOptions.isURL(bundle) ? bundle : JSONReport.absolute(bundle), root: root)
            JSONReport.print(JSONFields(JSONFields(preview, source), DryRunMark()), command: "expand")
        } else if !report.quiet {
            print(Self.text(preview, deletesUnknown: deleteUnknown).joined(separator: "\n"))
        }
    }

    /// The lines of the text preview.
    static func text(_ preview: InstallPreview, deletesUnknown: Bool) -> [String] {
        let files = InstalledTreeText.files
        guard !preview.upToDate else {
            return [Reporting.oneLine("\(preview.destination) is up to date; nothing would change")]
        }
        var lines = [Reporting.oneLine("dry run: expand would put \(files(preview.files, preview.bytes)) into \(preview.destination)"),
                     "  write \(files(preview.filesWritten, preview.bytesWritten)), link \(preview.filesLinked) unchanged, "
                        + "remove \(files(preview.filesRemoved, preview.bytesRemoved))"]
        if let bytes = preview.bytesToFetch, let requests = preview.requestsToFetch {
            lines.append("  would fetch \(bytes) bytes in \(requests) requests (plus \(preview.manifestBytes ?? 0) bytes of manifest)")
        }
        if !preview.unknown.isEmpty {
            let count = InstalledTreeText.entries(preview.unknown.count)
            lines += InstalledTreeText.list("  \(deletesUnknown ? "remove" : "keep") \(count) that assetpack did not write:",
                                            preview.unknown, indent: "    ")
        }
        return lines
    }
}
