import ArgumentParser

// The option groups several commands share, so that one thing has one spelling and one value name
// everywhere: a folder is `<dir>`, a count `<n>`, an archive `<archive>`.

/// `<archive>`, the zip archive that `list` and `verify` read.
struct ArchiveArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The zip archive (any zip, jar or apk; - reads one from stdin), or a bundle folder.", valueName: "archive"),
              completion: .file(extensions: ["zip", "apk", "jar", "ipa", "aar"]))  // folders complete too
    var path: String
}

/// `--jobs <n>`, shared by the commands that work on several threads.
struct JobsOption: ParsableArguments {
    @Option(name: .customLong("jobs"), help: ArgumentHelp("Threads working at once (default: one per core).", valueName: "n"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--jobs must be at least 1, not \(count).") }
    }
}

/// `-q/--quiet` and `--json`, shared by the commands that print on success (``JSONOption`` alone for those that
/// always print what they found).
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing on success.")
    var quiet = false

    @Flag(help: JSONOption.help)
    var json = false
}

/// `--progress`, shared by the commands that show a progress line (``ProgressLine``).
struct ProgressOption: ParsableArguments {
    @Flag(help: ArgumentHelp("Show the progress line also when stderr is not a terminal (a CI log): a new line at most once a second.",
                             discussion: "On a terminal the line is shown anyway, redrawn in place and never wider than the terminal."))
    var progress = false

    /// Refuses `--progress` beside `--quiet` or `--json`.
    func check(quiet: Bool, json: Bool) throws {
        if progress && (quiet || json) { throw ValidationError("--progress shows progress on stderr; leave out \(quiet ? "--quiet" : "--json").") }
    }
}

/// `-v/--verbose`, shared by the commands that write files: each file is listed as it is written.
struct VerboseOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "List each file as it is written (its path, one a line, on stdout).")
    var verbose = false

    /// Refuses `--verbose` beside `--quiet` or `--json`.
    func check(quiet: Bool, json: Bool) throws {
        guard verbose else { return }
        if quiet { throw ValidationError("Give either --verbose or --quiet, not both.") }
        if json { throw ValidationError("--verbose lists files as text; leave out --json.") }
    }
}

/// `--json`, shared by the commands that can report as JSON (README, "JSON output").
struct JSONOption: ParsableArguments {
    /// The flag's help, one wording for every command.
    static let help: ArgumentHelp = "Print one line of JSON (schema 1, see the README), also when the command fails."

    @Flag(help: help)
    var json = false
}

/// `--dry-run`: say what the command would do, change nothing.
struct DryRunOption: ParsableArguments {
    @Flag(help: "Say what would be done, in files and bytes, and change nothing.")
    var dryRun = false
}

/// What a `--dry-run --json` line adds: `"dryRun": true`.
struct DryRunMark: Encodable {
    var dryRun = true
}
