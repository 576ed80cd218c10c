import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip

/// How the CLI ends on a library error: one line on stderr naming the file and the reason (or, with
/// `--json`, one JSON line on stdout), and the exit status of its class (``ExitStatus``).
enum Reporting {
    /// What the command in progress is and how it reports; set once by ``AssetPackCommand/main()``
    /// before the command runs.
    struct Context: Sendable {
        /// The subcommand's name, for the JSON line.
        var command = "assetpack"
        /// True when `--json` was given: failures are JSON too.
        var json = false
        /// What an interrupted command says after `assetpack: ` (``ExpandCommand`` says it resumes).
        var interruptedHint = "interrupted"
    }

    nonisolated(unsafe) static var context = Context()

    /// The progress line on the terminal, cleared before anything else is written to stderr.
    nonisolated(unsafe) static var liveLine: ProgressLine?

    /// Runs `body`; a thrown ``AssetPackError`` or ``ZipError`` ends the process (``fail(_:)``).
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as AssetPackError {
            fail(error)
        } catch let error as ZipError {
            fail(AssetPackError(error))
        }
    }

    /// Reports `error` and exits with the status of its class.
    static func fail(_ error: AssetPackError) -> Never {
        let status = ExitStatus(error)
        if context.json {
            liveLine?.clear()
            JSONReport.print(ErrorReport(error), command: context.command, ok: false)
        } else if status == .interrupted {
            interrupted()
        } else {
            printError("assetpack: error: \(oneLine(error.description))")
        }
        CurrentProcess.exit(status.rawValue)
    }

    /// Clears the progress line and says the command was interrupted (without exiting).
    static func interrupted() {
        printError("assetpack: \(context.interruptedHint)")
    }

    /// `text` with control characters (a name from a hostile archive may hold a newline or an escape
    /// sequence) escaped as `ls -b` does (`AssetPath.printable`), so the report stays one line and cannot drive
    /// the terminal.
    static func oneLine(_ text: String) -> String { AssetPath.printable(text) }

    /// Writes a line to stderr, after clearing the progress line.
    static func printError(_ line: String) {
        liveLine?.clear()
        writeError(line + "\n")
    }

    /// Writes `text` to stderr as it is (the progress line redraws itself with it).
    static func writeError(_ text: String) {
        CurrentProcess.writeToStandardError(Array(text.utf8))
    }
}
