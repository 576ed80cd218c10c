import ArgumentParser
import AssetPack
import AssetPackZip
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        printError("assetpack: error: \(message)")
        Foundation_exit(1)
    }

    /// Writes a line to stderr.
    static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        bytes.withUnsafeBytes { raw in _ = write(2, raw.baseAddress, raw.count) }
    }

    /// True when stderr is a terminal (progress bars go there only then).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

private func Foundation_exit(_ code: Int32) -> Never { exit(code) }
