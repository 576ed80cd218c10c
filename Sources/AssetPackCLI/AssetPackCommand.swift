import ArgumentParser
import Foundation
import AssetPackSystem

/// `assetpack`: pack an app's asset tree into a bundle, and put a bundle on writable storage.
@main
struct AssetPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpack",
        abstract: "Ship asset trees inside apps and put them on writable storage at first launch.",
        discussion: """
            Every failure prints one line on stderr naming the file and the reason (with --json, one JSON \
            line on stdout instead) and exits with the status of its class:

            \(ExitStatus.helpText)
            """,
        version: "0.1.0",
        subcommands: [BuildCommand.self, ExpandCommand.self, ListCommand.self, VerifyCommand.self, CheckCommand.self,
                      StatusCommand.self, UninstallCommand.self, KeygenCommand.self, SignCommand.self]
    )

    /// Ignores SIGXFSZ before anything runs: a write past the file-size limit (`ulimit -f`) then fails with
    /// EFBIG and is reported like any other write error, instead of killing the process mid-file.
    /// On glibc, also bounds the heap (`CurrentProcess.boundMallocHeap`): the mmap threshold stays at 128 KiB
    /// (glibc raises it after the first large free, keeping a plan's freed arrays in the heap) and the threads
    /// share one arena per core instead of eight.
    ///
    /// Then parses and runs the command as argument-parser's `main()` does, with two additions: with
    /// `--json`, a command-line error is a JSON line too, and a mistyped command gets a suggestion.
    static func main() {
        CurrentProcess.ignoreFileSizeLimitSignal()
        CurrentProcess.boundMallocHeap(mapThreshold: 128 * 1024, arenas: ProcessInfo.processInfo.activeProcessorCount)
        let arguments = Array(CommandLine.arguments.dropFirst())
        Reporting.context.json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            if let mistyped = CommandSuggestion.unknownCommand(in: arguments, commands: commandNames) {
                throw mistyped
            }
            var command = try parseAsRoot(arguments)
            Reporting.context.command = type(of: command).configuration.commandName ?? "assetpack"
            try command.run()
        } catch {
            end(with: error, arguments: arguments)
        }
    }

    /// The names of the subcommands, `help` included.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// Ends with `error`: as JSON when `--json` was given; a command-line error as one line on stderr,
    /// `assetpack: error: MESSAGE (see 'assetpack COMMAND --help')`, like every other failure; anything else
    /// (help, `--version`, a failure of the command) as argument-parser prints it.
    private static func end(with error: any Error, arguments: [String]) -> Never {
        let status = ExitStatus(any: error)
        if Reporting.context.command == "assetpack", let name = arguments.first(where: commandNames.contains), name != "help" {
            Reporting.context.command = name
        }
        var error = error
        if status == .usage, let type = configuration.subcommands.first(where: { $0.configuration.commandName == Reporting.context.command }),
           let unknown = CommandSuggestion.unknownOption(in: arguments, command: type) {
            error = unknown  // what argument-parser reported instead follows from it (`--too DIR`: `--to` missing)
        }
        if status == .usage && !Reporting.context.json {
            let command = Reporting.context.command == "assetpack" ? "assetpack" : "assetpack " + Reporting.context.command
            let text = message(for: error).split(whereSeparator: \.isNewline).joined(separator: " ")
            FileHandle.standardError.write(Data("assetpack: error: \(text) (see '\(command) --help')\n".utf8))
            CurrentProcess.exit(status.rawValue)
        }
        guard Reporting.context.json, status != .success else { exit(withError: error) }
        let report = ErrorReport(status, code: status == .usage ? "usage" : "failure", message: message(for: error))
        JSONReport.print(report, command: Reporting.context.command, ok: false)
        CurrentProcess.exit(status.rawValue)
    }
}
