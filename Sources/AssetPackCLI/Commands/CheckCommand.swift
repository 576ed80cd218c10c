import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation

/// `assetpack check FILE`: are the packed bundles inside an APK, AAB, IPA or zip as the expander needs
/// them (``ContainerCheck``)? One section per bundle on stdout; exit status 0 when every check passes,
/// 1 with one line on stderr when one does not; a file that is not a readable zip fails as every command does.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the packed bundles inside an APK, AAB, IPA or zip: archives stored, stored data aligned, files as the manifest records them.",
        discussion: """
            Every folder holding assetpack-meta/manifest.json at any depth is a bundle. For each: its packed \
            archives must be stored by the container, not compressed again (Gradle: noCompress += "zip"; \
            aapt: -0 zip); the data of every stored file and archive must \
            start at a multiple of 4 bytes (4096 with --page-align), so it can be mapped in place; and every \
            file the manifest lists must be there with the size and CRC-32 it records (from the container's \
            central directory, and for packed files from the archive's). Exits 1 on any problem found (no \
            bundle is one), 65 when <file> is not a readable zip, 66 when it is missing.

            Examples:
              assetpack check app.apk
              assetpack check --page-align app.apk
              curl -sL https://ci.example.com/app.apk | assetpack check -
            """
    )

    @Argument(help: ArgumentHelp("The APK, AAB, IPA or zip to check (- reads it from stdin).", valueName: "file"))
    var path: String

    @Flag(help: "Require stored data to start at a multiple of 4096 bytes (a page) instead of 4.")
    var pageAlign = false

    @OptionGroup var format: JSONOption

    func run() throws {
        try Reporting.run {
            if path != AssetSources.standardInput, (try? FileSystem.status(path))??.kind == .directory {
                throw AssetPackError(.invalidArgument, "is a folder; check reads an APK, AAB, IPA or zip "
                                     + "(assetpack verify checks a bundle folder)", path: path)
            }
            let check = ContainerCheck(archive: try AssetSources.zipArchive(path: path),
                                       options: ContainerCheck.Options(alignment: pageAlign ? 4096 : 4))
            if format.json {
                JSONReport.print(CheckReport(check), command: "check", ok: check.passed)
            } else {
                print(CheckText.text(check), terminator: "")
            }
            guard check.passed else {
                // A problem found is the command's answer, not a failure to run: exit 1 (see --help).
                if !format.json { Reporting.printError("assetpack: error: \(Reporting.oneLine(CheckText.verdict(check)))") }
                CurrentProcess.exit(ExitStatus.differs.rawValue)
            }
        }
    }
}

/// How `check` shows a ``ContainerCheck``.
enum CheckText {
    /// One section per bundle, then `FILE: OK, N bundles checked` (failures end on stderr instead).
    static func text(_ check: ContainerCheck) -> String {
        var out = ""
        for bundle in check.bundles {
            let place = bundle.root.isEmpty ? "at the top" : bundle.root + "/"
            out += "\(check.container): bundle \(place): \(counted(bundle.files, "file")), "
                + "\(counted(bundle.archives.count, "packed archive"))\n"
            if !bundle.layout.checksStorage {
                out += "  stored: not checked, an IPA is unpacked at install\n"
            } else {
                out += aspect("stored", bundle, ok: bundle.archives.isEmpty ? "nothing is packed"
                              : "\(counted(bundle.archives.count, "packed archive")) stored")
            }
            if bundle.layout == .ipa {
                out += "  aligned: not checked, an IPA is unpacked at install\n"
            } else if bundle.layout == .appBundle {
                out += "  aligned: not checked, bundletool aligns the APKs it builds from an App Bundle\n"
            } else {
                out += aspect("aligned", bundle, ok: "\(counted(bundle.alignedEntries, "stored entry", "stored entries")) "
                              + "at multiples of \(check.alignment)")
            }
            out += aspect("matches", bundle, ok: "\(counted(bundle.files, "file")) as the manifest records them")
        }
        if check.passed { out += "\(check.container): OK, \(counted(check.bundles.count, "bundle")) checked\n" }
        return out
    }

    /// The stderr line of a failed check (without `assetpack: error: `).
    static func verdict(_ check: ContainerCheck) -> String {
        if check.bundles.isEmpty { return check.problems.map(\.description).joined(separator: "; ") }
        return "\(check.container): \(counted(check.problems.count, "problem")) in "
            + "\(counted(check.bundles.count, "bundle"))"
    }

    /// `  NAME: ok, WHAT` or `  NAME: N problems` and one line per problem.
    private static func aspect(_ name: String, _ bundle: ContainerCheck.Bundle, ok: String) -> String {
        let problems = bundle.problems.filter { $0.aspect.rawValue == name }
        guard !problems.isEmpty else { return "  \(name): ok, \(ok)\n" }
        return "  \(name): \(counted(problems.count, "problem"))\n"
            + problems.map { "    " + Reporting.oneLine($0.description) + "\n" }.joined()
    }
}

/// The `--json` line of `check` (its `ok` is the verdict: false when a problem was found).
struct CheckReport: Encodable {
    var file: String
    var alignment: UInt64
    var bundles: [BundleRow]
    var problems: [ProblemRow]

    init(_ check: ContainerCheck) {
        file = JSONReport.absolute(check.container)
        alignment = check.alignment
        bundles = check.bundles.map(BundleRow.init)
        problems = check.bundles.isEmpty ? check.problems.map { ProblemRow($0, bundle: nil) }
            : check.bundles.flatMap { bundle in bundle.problems.map { ProblemRow($0, bundle: bundle.root) } }
    }

    /// A bundle; `stored` and `aligned` are left out where the layout does not check them.
    struct BundleRow: Encodable {
        var root, layout, manifest: String
        var files: Int
        var archives: [String]
        var alignedEntries: Int
        var stored, aligned: Bool?
        var matches: Bool

        init(_ bundle: ContainerCheck.Bundle) {
            (root, layout, manifest) = (bundle.root, bundle.layout.rawValue, bundle.manifest)
            (files, archives, alignedEntries) = (bundle.files, bundle.archives, bundle.alignedEntries)
            stored = bundle.layout.checksStorage ? bundle.stored : nil
            aligned = bundle.layout.checksAlignment ? bundle.aligned : nil
            matches = bundle.matches
        }
    }

    /// A problem, with the root of the bundle it was found in.
    struct ProblemRow: Encodable {
        var bundle: String?
        var aspect, kind, path, message: String

        init(_ problem: ContainerCheck.Problem, bundle: String?) {
            self.bundle = bundle
            (aspect, kind, path, message) = (problem.aspect.rawValue, problem.kind.rawValue, problem.path, problem.message)
        }
    }
}
