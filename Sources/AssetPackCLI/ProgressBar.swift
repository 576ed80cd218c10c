import AssetPack
import AssetPackPacker

/// The one progress bar of the CLI: one line redrawn on stderr, `[#####.....] 12/40 path/of/the/file`,
/// drawn only when stderr is a terminal and the command is not quiet.
final class ProgressBar: Sendable {
    /// Cells of the bar.
    private static let width = 30

    /// A bar when stderr is a terminal and `quiet` is false, nil otherwise.
    static func onTerminal(unless quiet: Bool) -> ProgressBar? {
        quiet || !Reporting.stderrIsTerminal ? nil : ProgressBar()
    }

    /// Redraws the bar for a build.
    @Sendable func update(_ progress: BuildProgress) {
        draw(bytes: progress.bytesDone, of: progress.totalBytes, files: progress.filesDone, of: progress.fileCount,
             name: progress.path)
    }

    /// Redraws the bar for an expansion (only while it writes files).
    @Sendable func update(_ progress: ExpansionProgress) {
        guard progress.phase == .writing else { return }
        draw(bytes: progress.bytesDone, of: progress.bytesTotal, files: progress.filesDone, of: progress.filesTotal,
             name: progress.path?.string ?? "")
    }

    /// Erases the bar.
    func clear() { Reporting.writeError("\r\u{1B}[K") }

    private func draw(bytes: UInt64, of totalBytes: UInt64, files: Int, of totalFiles: Int, name: String) {
        let fraction = totalBytes == 0 ? 1 : Double(bytes) / Double(totalBytes)
        let filled = max(0, min(Self.width, Int(fraction * Double(Self.width))))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: Self.width - filled)
        let shown = name.count > 40 ? "…" + name.suffix(39) : Substring(name)
        Reporting.writeError("\r[\(bar)] \(files)/\(totalFiles) \(shown)\u{1B}[K")
    }
}
