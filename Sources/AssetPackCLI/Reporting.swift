import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip

/// How the CLI ends on a library error: one line on stderr naming the file and the reason, exit status 1.
enum Reporting {
    /// Runs `body`; a thrown ``AssetPackError`` or ``ZipError`` becomes a stderr line and exit code 1.
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as AssetPackError {
            fail(error.description)
        } catch let error as ZipError {
            fail(error.description)
        }
    }

    /// Prints `assetpack: message` on stderr and exits with status 1.
    static func fail(_ message: String) -> Never {
        printError("assetpack: error: \(oneLine(message))")
        CurrentProcess.exit(1)
    }

    /// `text` with control characters (a name from a hostile archive may hold a newline or an escape
    /// sequence) written as `\u{…}`, so the report stays one line and cannot drive the terminal.
    static func oneLine(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Writes a line to stderr.
    static func printError(_ line: String) {
        writeError(line + "\n")
    }

    /// Writes `text` to stderr as it is (a progress bar redraws its line with it).
    static func writeError(_ text: String) {
        CurrentProcess.writeToStandardError(Array(text.utf8))
    }

    /// True when stderr is a terminal (progress bars go there only then).
    static var stderrIsTerminal: Bool { CurrentProcess.standardErrorIsTerminal }
}
