import ArgumentParser
import AssetPack
import AssetPackSystem
import Foundation

/// `assetpack status DIR [--source SRC]`: what a destination holds, without reading the installed files.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Say what a destination holds: not installed, partial, installed or outdated.",
        discussion: """
            Reads the install record, names, sizes and modes only, never the contents of installed files: \
            entries that differ from the record in type, size, mode or link target are listed (expand \
            --verify reads contents too, --repair repairs), and so are entries the record does not know. \
            With --source, the installed identity is compared with the source's, as expand's up-to-date check does (with the same --root, --keep-zips and --allow-symlinks).

            Exit status: 0 installed (with --source, the source's version) and no entry differs; 1 an entry \
            differs from the record, or outdated; 2 not installed or partial; 3 DIR holds files but no install \
            record (not assetpack's); 64 and up as for every command (see assetpack --help).

            Examples:
              assetpack status data
              assetpack status data --source app.bundle --json
            """
    )

    @Argument(help: ArgumentHelp("The destination folder (what expand --to named).", valueName: "DIR"))
    var destination: String

    @Option(help: ArgumentHelp("A bundle, asset folder or zip/APK to compare with (outdated when its identity differs).",
                               valueName: "SRC"))
    var source: String?

    @Option(help: ArgumentHelp("With --source: the folder inside it where the tree starts, as for expand.", valueName: "PREFIX"))
    var root: String?

    @Flag(help: "With --source: as expand --keep-zips.")
    var keepZips = false

    @Flag(help: "With --source: as expand --allow-symlinks.")
    var allowSymlinks = false

    @OptionGroup var format: JSONOption

    func validate() throws {
        if source == nil && (root != nil || keepZips || allowSymlinks) {
            throw ValidationError("--root, --keep-zips and --allow-symlinks describe a source; give one with --source.")
        }
        try RootOption.check(root)
    }

    func run() throws {
        try Reporting.run {
            let status: InstallStatus
            if let source {
                let options = ExpansionOptions(keepZips: keepZips, allowSymlinks: allowSymlinks)
                let installer = try AssetInstaller(source: try AssetSources.container(path: source, root: root),
                                                   destination: destination, options: options)
                status = try installer.status()
            } else {
                status = try InstalledTree.status(at: destination)
            }
            let exitStatus = Self.exitStatus(status)
            if format.json {
                JSONReport.print(status, command: "status", ok: exitStatus == 0)
            } else {
                print(Self.text(status).joined(separator: "\n"))
            }
            if exitStatus != 0 { CurrentProcess.exit(exitStatus) }
        }
    }

    /// The exit status that answers what `status` found (the discussion of `--help` lists them).
    static func exitStatus(_ status: InstallStatus) -> Int32 {
        switch status.state {
        case .installed: status.problems.isEmpty ? 0 : ExitStatus.differs.rawValue
        case .outdated: ExitStatus.differs.rawValue
        case .partial: 2
        case .notInstalled: status.unknown.isEmpty ? 2 : 3
        }
    }

    /// The lines of the text report.
    static func text(_ status: InstallStatus) -> [String] {
        var lines = [Reporting.oneLine("\(status.destination): \(status.state.text)")]
        if let installed = status.installed {
            lines.append(Reporting.oneLine("  identity: \(installed.identity)"))
            if let source = status.sourceIdentity, source != installed.identity {
                lines.append(Reporting.oneLine("  source: \(source)"))
            }
            lines.append("  files: \(installed.files) (\(ByteCount.text(installed.bytes)))")
            if let date = installed.installedAt { lines.append("  installed: \(InstalledTreeText.time(date))") }
        }
        if let staging = status.staging { lines += stagingLines(staging, source: status.sourceIdentity) }
        if !status.problems.isEmpty {
            lines += InstalledTreeText.list("  changed: \(InstalledTreeText.entries(status.problems.count)) "
                                            + "\(status.problems.count == 1 ? "differs" : "differ") from the record "
                                            + "(contents not read; expand --repair repairs them)",
                                            status.problems.map(\.description), indent: "    ")
        }
        if !status.unknown.isEmpty {
            let heading = status.installed == nil
                ? "  unknown: \(InstalledTreeText.entries(status.unknown.count)) that assetpack did not install"
                : "  unknown: \(InstalledTreeText.entries(status.unknown.count)) the record does not know "
                    + "(kept by an upgrade or a repair; --delete-unknown removes them)"
            lines += InstalledTreeText.list(heading, status.unknown, indent: "    ")
        }
        return lines
    }

    private static func stagingLines(_ staging: InstallStatus.Staging, source: String?) -> [String] {
        let what = staging.complete ? "a complete tree" : InstalledTreeText.files(staging.files, staging.bytes) + " written"
        var lines = [Reporting.oneLine("  staging: \(what) in \(staging.path)")]
        if let identity = staging.identity { lines.append(Reporting.oneLine("    of \(identity)")) }
        let next = if staging.applying {
            "an upgrade in place was cut short here: the next expand, of any source, finishes it first"
        } else if let source, staging.identity != source {
            "not the source's identity: the next expand of it removes this tree"
        } else if staging.complete {
            "the next expand switches it in"
        } else {
            "the next expand resumes it, checking each file again"
        }
        return lines + ["    " + next]
    }
}

extension InstallStatus.State {
    /// `not installed`, `partial`, `installed`, `outdated`.
    var text: String { self == .notInstalled ? "not installed" : rawValue }
}
