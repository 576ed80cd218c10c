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
            JSONReport.print(VerifySummary.fields(result, source: JSONReport.absolute(bundle), root: root), command: "expand")
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
            : result.expansion != nil ? "kept \(count) in \(result.destination) that the record does not know:"
            : "\(count) in \(result.destination) that the record does not know (kept by an upgrade or a repair; "
                + "--delete-unknown removes them):"
        print(InstalledTreeText.list(heading, result.unknown).joined(separator: "\n"))
    }
}

/// What the `--json` line of `expand --verify` adds beside `expand --json`'s fields: what the check found and did.
struct VerifySummary: Encodable {
    var outcome: String
    var problems: [InstalledTreeProblem]
    var repaired: [String]
    var unknown: [String]
    var unknownRemoved: Bool

    /// The whole line's fields: the expansion's (for a check that installed nothing, the files and bytes
    /// checked) beside this summary's.
    static func fields(_ result: VerifyResult, source: String,
                       root: String?) -> JSONFields<JSONFields<ExpansionResult, ExpandReport>, VerifySummary> {
        let checked = ExpansionResult(destination: result.destination, upToDate: true, identity: "",
                                      files: result.filesChecked, bytes: result.bytesChecked)
        return JSONFields(ExpandReport.fields(result.expansion ?? checked, source: source, root: root), VerifySummary(result))
    }

    private init(_ result: VerifyResult) {
        outcome = result.outcome.rawValue
        (problems, repaired, unknown, unknownRemoved) = (result.problems, result.repaired, result.unknown, result.unknownRemoved)
    }
}
