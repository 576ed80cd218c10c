import AssetPack
import AssetPackSystem
import Foundation

/// `assetpack expand … --verify`, the deep check that changes nothing (``AssetInstaller/verify()``), and
/// `--repair`, which also writes again what differs (``AssetInstaller/repair(progress:cancellation:)``).
extension ExpandCommand {
    /// `--verify`: reports what differs and exits ``ExitStatus/differs`` when anything does.
    func check(_ installer: AssetInstaller) throws {
        let result = try installer.verify()
        let differs = result.outcome != .upToDate
        if report.json {
            JSONReport.print(JSONFields(JSONFields(CheckedTree(result), source()), VerifySummary(result)), command: "expand", ok: !differs)
        } else if !report.quiet {
            print((checkLines(result) + unknownLines(result)).joined(separator: "\n"))
        }
        if differs { CurrentProcess.exit(ExitStatus.differs.rawValue) }
    }

    /// `--repair`: repairs, and lists what it wrote again and what it removed.
    func repair(_ installer: AssetInstaller, line: ProgressLine?, cancellation: ExpansionCancellation) throws {
        let result = try installer.repair(progress: { line?.update($0) }, cancellation: cancellation)
        line?.clear()
        if report.json {
            let expansion = result.expansion ?? ExpansionResult(destination: result.destination, upToDate: true, identity: result.identity ?? "",
                                                                files: result.filesChecked, bytes: result.bytesChecked, seconds: result.seconds)
            JSONReport.print(JSONFields(ExpandReport.fields(expansion, source: source().source, root: root),
                                        VerifySummary(result, repair: true)), command: "expand")
        } else if !report.quiet {
            if let expansion = result.expansion, result.outcome == .installed { report(expansion) }
            let lines = checkLines(result) + unknownLines(result)
            if !lines.isEmpty { print(lines.joined(separator: "\n")) }
        }
    }

    /// What ``ExpandReport`` adds: the source, absolute, and `--root`.
    private func source() -> ExpandReport { ExpandReport(source: JSONReport.absolute(bundle), root: root) }

    /// What the check found, or the repair did: a line, then the entries that differ.
    private func checkLines(_ result: VerifyResult) -> [String] {
        let problems = result.problems.map(\.description), count = InstalledTreeText.entries(problems.count)
        switch result.outcome {
        case .upToDate:
            return [Reporting.oneLine("\(result.destination) is up to date: "
                                      + "\(InstalledTreeText.files(result.filesChecked, result.bytesChecked)) verified")]
        case .repaired:
            return InstalledTreeText.list("repaired \(count) in \(result.destination):", problems)
        case .installed:
            return problems.isEmpty ? [] : InstalledTreeText.list("  written again, not reused: \(count) differed from "
                                                                  + "the previous record:", problems, indent: "    ")
        case .damaged:
            return InstalledTreeText.list("\(result.destination): \(count) \(problems.count == 1 ? "differs" : "differ") "
                                          + "from the record (expand --repair writes them again):", problems)
        case .outdated:
            let state = result.identity == nil ? "not installed (expand installs the source)"
                : "outdated: it holds another version than the source's (expand upgrades it)"
            return [Reporting.oneLine("\(result.destination): \(state)")]
                + (problems.isEmpty ? [] : InstalledTreeText.list("  \(count) differ from the record:", problems, indent: "    "))
        }
    }

    /// The entries the record does not know, under a heading that says what became of them.
    private func unknownLines(_ result: VerifyResult) -> [String] {
        guard !result.unknown.isEmpty else { return [] }
        let count = InstalledTreeText.entries(result.unknown.count)
        let heading = result.unknownRemoved
            ? "removed \(count) in \(result.destination) that the record did not know:"
            : result.expansion != nil ? "kept \(count) in \(result.destination) that the record does not know:"
            : "\(count) in \(result.destination) that the record does not know (kept by an upgrade or a repair; "
                + "--delete-unknown removes them):"
        return InstalledTreeText.list(heading, result.unknown)
    }
}

/// The tree `expand --verify --json` checked: what it holds, read from every file, not what was written.
struct CheckedTree: Encodable {
    var destination: String, upToDate: Bool, files: Int, bytes: UInt64, seconds: Double
    /// The identity recorded; left out when the destination records none.
    var identity: String?

    init(_ result: VerifyResult) {
        (destination, upToDate, identity) = (result.destination, result.outcome == .upToDate, result.identity)
        (files, bytes, seconds) = (result.filesChecked, result.bytesChecked, (result.seconds * 1_000_000).rounded() / 1_000_000)
    }
}

/// What the `--json` line of `expand --verify` or `--repair` adds: what the check found and, for a repair, the
/// entries written again (those removed are the expansion's `unknownDeleted`).
struct VerifySummary: Encodable {
    var outcome: String
    var problems: [InstalledTreeProblem]
    var repaired: [String]?
    var unknown: [String]

    init(_ result: VerifyResult, repair: Bool = false) {
        (outcome, problems, unknown) = (result.outcome.rawValue, result.problems, result.unknown)
        repaired = repair ? result.repaired : nil
    }
}
