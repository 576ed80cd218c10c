import ArgumentParser

/// `ARCHIVE`, the zip archive that `list` and `verify` read.
struct ArchiveArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The zip archive (any zip, jar or apk), or a bundle folder.", valueName: "archive"))
    var path: String
}

/// `--jobs N`, shared by the commands that work on several threads.
struct JobsOption: ParsableArguments {
    @Option(name: .customLong("jobs"), help: ArgumentHelp("Threads working at once (default: one per core).", valueName: "N"))
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--jobs must be at least 1, not \(count).") }
    }
}

/// `-q/--quiet`, shared by the commands that print on success.
struct ReportOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing on success.")
    var quiet = false
}
