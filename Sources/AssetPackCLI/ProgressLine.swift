import AssetPack
import AssetPackPacker
import AssetPackSystem
import Foundation

/// The one progress line of the CLI, redrawn in place on stderr, only when stderr is a terminal and the
/// command is neither quiet nor printing JSON:
///
///     [########............]  12.3 MiB / 40.0 MiB  5.1 MiB/s  ETA 0:05  levels/one.bin
///
/// then `flushing to disk…` while an expansion is flushed. Redrawn at most every 100 ms (and at each new
/// step); cleared before the command prints anything else, fails or is interrupted.
final class ProgressLine: @unchecked Sendable {
    /// Cells of the bar.
    private static let barWidth = 20
    /// Seconds between two redraws of the same step.
    private static let redrawInterval = 0.1

    private let lock = Monitor()
    private let columns: Int
    // Guarded by `lock`:
    private var shown: String?
    private var lastDraw = -Double.infinity
    private var step: String?
    private var writingStarted: (seconds: Double, bytes: UInt64)?

    /// A line when stderr is a terminal and `quiet` is false, nil otherwise; it becomes the line
    /// ``Reporting`` clears.
    static func onTerminal(unless quiet: Bool) -> ProgressLine? {
        guard !quiet, Reporting.stderrIsTerminal else { return nil }
        let line = ProgressLine(columns: CurrentProcess.environment("COLUMNS").flatMap { Int($0) } ?? 80)
        Reporting.liveLine = line
        return line
    }

    private init(columns: Int) { self.columns = max(40, columns) }

    /// Redraws the line for an expansion.
    func update(_ progress: ExpansionProgress) {
        switch progress.phase {
        case .planning: draw(step: "planning") { _ in "planning…" }
        case .writing:
            draw(step: "writing") { [self] now in
                bar(progress.bytesDone, of: progress.bytesTotal, now: now, name: progress.path?.string ?? "")
            }
        case .flushing:
            draw(step: "flushing") { _ in
                Self.cells(progress.bytesDone, of: progress.bytesTotal) + "  " + Self.amounts(progress.bytesDone, of: progress.bytesTotal)
                    + "  flushing to disk…"
            }
        case .committed, .switched, .done: return
        }
    }

    /// Redraws the line for a build.
    func update(_ progress: BuildProgress) {
        draw(step: "writing") { [self] now in bar(progress.bytesDone, of: progress.totalBytes, now: now, name: progress.path) }
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
            guard step != self.step || now - lastDraw >= Self.redrawInterval else { return }
            self.step = step
            lastDraw = now
            show(text(now))
        }
    }

    private func show(_ text: String) {
        shown = text
        Reporting.writeError("\r" + text + "\u{1B}[K")
    }

    private func eraseLocked() {
        guard shown != nil else { return }
        shown = nil
        Reporting.writeError("\r\u{1B}[K")
    }

    /// `[####....]  12.3 MiB / 40.0 MiB  5.1 MiB/s  ETA 0:05  name`, `name` shortened to fit the terminal.
    /// Under the lock.
    private func bar(_ bytes: UInt64, of total: UInt64, now: Double, name: String) -> String {
        let start = writingStarted ?? (now, bytes)
        writingStarted = start
        let elapsed = now - start.seconds
        let rate = elapsed >= 0.25 ? Double(bytes - min(bytes, start.bytes)) / elapsed : nil
        var text = Self.cells(bytes, of: total) + "  " + Self.amounts(bytes, of: total)
        text += "  " + (rate.map { ByteCount.text(UInt64($0)) + "/s" } ?? "-- B/s")
        text += "  ETA " + Self.eta(remaining: total - min(total, bytes), rate: rate)
        let room = columns - 1 - text.count - 2
        guard room >= 8, !name.isEmpty else { return text }
        let shortened = name.count > room ? "…" + name.suffix(room - 1) : Substring(name)
        return text + "  " + shortened
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
