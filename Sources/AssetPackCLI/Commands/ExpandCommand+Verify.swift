import AssetPack
import Foundation

/// `assetpack expand … --verify`: the deep check and repair (``AssetInstaller/verify(repair:progress:cancellation:)``).
extension ExpandCommand {
    func verifyAndRepair(_ installer: AssetInstaller, line: ProgressLine?) throws {
        let result: VerifyResult
        do {
            result = try installer.verify { progress in line?.update(progress) }
        } catch {
            line?.clear()
            throw error
        }
        line?.clear()
        if format.json {
            JSONReport.print(VerifySummary(result, source: JSONReport.absolute(bundle), root: root), command: "expand")
        } else if !report.quiet {
            report(result)
        }
    }

    /// The text report: what was found and done, each entry that differed, and the entries the record did not know.
    private func report(_ result: VerifyResult) {
        let problems = result.problems.map(\.description)
        switch result.outcome {
        case .repaired:
            print(InstalledTreeText.list("repaired \(InstalledTreeText.entries(problems.count)) in \(result.destination):",
                                         problems).joined(separator: "\n"))
        case .installed:
            if let expansion = result.expansion { report(expansion) }
            if !problems.isEmpty {
                print(InstalledTreeText.list("  written again, not reused: \(InstalledTreeText.entries(problems.count)) "
                                             + "differed from the previous record:", problems, indent: "    ").joined(separator: "\n"))
            }
        case .upToDate, .damaged, .outdated:
            print(Reporting.oneLine("\(result.destination) is up to date: "
                                    + "\(InstalledTreeText.files(result.filesChecked, result.bytesChecked)) verified"))
        }
        guard !result.unknown.isEmpty else { return }
        let count = InstalledTreeText.entries(result.unknown.count)
        let heading = result.unknownRemoved
            ? "removed \(count) in \(result.destination) that the record did not know:"
            : "\(count) in \(result.destination) that the record does not know; an upgrade or a repair would remove them:"
        print(InstalledTreeText.list(heading, result.unknown).joined(separator: "\n"))
    }
}

/// The `--json` line of `expand --verify`: `expand --json`'s fields, plus what the check found and did.
struct VerifySummary: Encodable {
    var expansion: ExpandReport
    var outcome: String
    var problems: [InstalledTreeText.Problem]
    var repaired: [String]
    var unknown: [String]
    var unknownRemoved: Bool

    init(_ result: VerifyResult, source: String, root: String?) {
        let checked = ExpansionResult(destination: result.destination, upToDate: true, identity: "",
                                      files: result.filesChecked, bytes: result.bytesChecked)
        expansion = ExpandReport(result.expansion ?? checked, source: source, root: root)
        outcome = result.outcome.rawValue
        problems = result.problems.map(InstalledTreeText.Problem.init)
        repaired = result.repaired
        unknown = result.unknown
        unknownRemoved = result.unknownRemoved
    }

    private enum CodingKeys: String, CodingKey { case outcome, problems, repaired, unknown, unknownRemoved }

    /// One object: the expansion's keys beside this summary's own.
    func encode(to encoder: any Encoder) throws {
        try expansion.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(problems, forKey: .problems)
        try container.encode(repaired, forKey: .repaired)
        try container.encode(unknown, forKey: .unknown)
        try container.encode(unknownRemoved, forKey: .unknownRemoved)
    }
}
