import AssetPack
import AssetPackPacker
import AssetPackSystem
import Foundation

/// The one progress line of the CLI on stderr, when the command is neither quiet nor printing JSON:
///
///     [########............]  12.3 MiB / 40.0 MiB  3/24 files  5.1 MiB/s  ETA 0:05  levels/one.bin
///
/// then `flushing to disk…` while an expansion is flushed. Never longer than the terminal's width less one
/// (``CurrentProcess/standardErrorColumns``): the parts that do not fit are left out, the least useful first.
/// On a terminal it is redrawn in place at most every 100 ms (and at each new step), and cleared before the
/// command prints anything else, fails or is interrupted; with `--progress` on anything else (a CI log) each
/// update is a new line, at most one a second.
final class ProgressLine: @unchecked Sendable {
    /// Cells of the bar.
    private static let barWidth = 20

    private let lock = Monitor()
    private let columns: Int
    /// True on a terminal: the line is redrawn in place; else each update is a line of its own.
    private let inPlace: Bool
    /// Seconds between two redraws of the same step.
    private let redrawInterval: Double
    // Guarded by `lock`:
    private var shown: String?
    private var lastDraw = -Double.infinity
    private var step: String?
    private var writingStarted: (seconds: Double, bytes: UInt64)?

    /// A line when `quiet` is false and stderr is a terminal or `forced` (`--progress`), nil otherwise; it
    /// becomes the line ``Reporting`` clears.
    static func onTerminal(unless quiet: Bool, forced: Bool = false) -> ProgressLine? {
        let terminal = CurrentProcess.standardErrorIsTerminal
        guard !quiet, terminal || forced else { return nil }
        let line = ProgressLine(columns: CurrentProcess.standardErrorColumns, inPlace: terminal)
        Reporting.liveLine = line
        return line
    }

    private init(columns: Int, inPlace: Bool) {
        (self.columns, self.inPlace, redrawInterval) = (max(2, columns), inPlace, inPlace ? 0.1 : 1)
    }

    /// Redraws the line for an expansion.
    func update(_ progress: ExpansionProgress) {
        switch progress.phase {
        case .planning: draw(step: "planning") { _ in "planning…" }
        case .writing:
            draw(step: "writing") { [self] now in
                bar(progress.bytesDone, of: progress.bytesTotal, files: (progress.filesDone, progress.filesTotal), now: now,
                    name: progress.path?.string ?? "")
            }
        case .flushing:
            draw(step: "flushing") { [self] _ in
                fitted([(Self.cells(progress.bytesDone, of: progress.bytesTotal), 2),
                        (Self.amounts(progress.bytesDone, of: progress.bytesTotal), 1), ("flushing to disk…", 0)])
            }
        case .committed, .switched, .done: return
        }
    }

    /// Redraws the line for a build.
    func update(_ progress: BuildProgress) {
        draw(step: "writing") { [self] now in
            bar(progress.bytesDone, of: progress.totalBytes, files: (progress.filesDone, progress.fileCount), now: now,
                name: progress.path)
        }
    }

    /// Erases the line.
    func clear() {
        lock.withLock {
            eraseLocked()
        }
    }

    /// Writes `line` on stdout above the progress line (which is drawn again below it).
    func printAbove(_ line: String) {
        lock.withLock {
            let text = shown
            eraseLocked()
            print(line)  // stdout on a terminal is line-buffered: out before the line is drawn again
            if let text { show(text) }
        }
    }

    // MARK: - Drawing

    /// Draws `text(now)` unless the same step was drawn less than ``redrawInterval`` ago.
    private func draw(step: String, _ text: (Double) -> String) {
        let now = SystemClock.monotonicSeconds()
        lock.withLock {
            guard step != self.step || now - lastDraw >= redrawInterval else { return }
            self.step = step
            lastDraw = now
            show(text(now))
        }
    }

    private func show(_ text: String) {
        let line = String(text.prefix(columns - 1))  // what fitted() left is never longer; this makes sure
        if inPlace {
            shown = line
            Reporting.writeError("\r" + line + "\u{1B}[K")
        } else {
            Reporting.writeError(line + "\n")
        }
    }

    private func eraseLocked() {
        guard shown != nil else { return }
        shown = nil
        Reporting.writeError("\r\u{1B}[K")
    }

    /// `[####....]  12.3 MiB / 40.0 MiB  3/24 files  5.1 MiB/s  ETA 0:05  name`, fitted to the width
    /// (``fitted(_:)``), `name` shortened to the room left. Under the lock.
    private func bar(_ bytes: UInt64, of total: UInt64, files: (done: Int, total: Int), now: Double, name: String) -> String {
        let start = writingStarted ?? (now, bytes)
        writingStarted = start
        let elapsed = now - start.seconds
        let rate = elapsed >= 0.25 ? Double(bytes - min(bytes, start.bytes)) / elapsed : nil
        let text = fitted([(Self.cells(bytes, of: total), 3), (Self.amounts(bytes, of: total), 0),
                           ("\(files.done)/\(files.total) files", 1), (rate.map { ByteCount.text(UInt64($0)) + "/s" } ?? "-- B/s", 4),
                           ("ETA " + Self.eta(remaining: total - min(total, bytes), rate: rate), 2)])
        let room = columns - 1 - text.count - 2
        guard room >= 8, !name.isEmpty else { return text }
        let shortened = name.count > room ? "…" + name.suffix(room - 1) : Substring(name)
        return text + "  " + shortened
    }

    /// The `parts` that fit in the width less one, two spaces apart, in their order: taken by `rank`, 0 first,
    /// as long as the next one fits.
    private func fitted(_ parts: [(text: String, rank: Int)]) -> String {
        var kept = Array(repeating: false, count: parts.count), used = -2
        for index in parts.indices.sorted(by: { parts[$0].rank < parts[$1].rank })
        where used + 2 + parts[index].text.count <= columns - 1 {
            kept[index] = true
            used += 2 + parts[index].text.count
        }
        return parts.indices.filter { kept[$0] }.map { parts[$0].text }.joined(separator: "  ")
    }

    /// `[########............]`.
    private static func cells(_ bytes: UInt64, of total: UInt64) -> String {
        let fraction = total == 0 ? 1 : Double(bytes) / Double(total)
        let filled = max(0, min(barWidth, Int(fraction * Double(barWidth))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
    }

    /// `12.3 MiB / 40.0 MiB`.
    private static func amounts(_ bytes: UInt64, of total: UInt64) -> String {
        ByteCount.text(bytes) + " / " + ByteCount.text(total)
    }

    /// `0:05`, `1:02:03`, or `--:--` while the rate is unknown.
    private static func eta(remaining: UInt64, rate: Double?) -> String {
        guard let rate, rate > 0 else { return "--:--" }
        let seconds = Int((Double(remaining) / rate).rounded(.up))
        let (hours, minutes, rest) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        let clock = String(format: "%d:%02d", minutes, rest)
        return hours > 0 ? "\(hours):" + String(format: "%02d:%02d", minutes, rest) : clock
    }
}
