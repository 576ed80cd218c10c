import ArgumentParser
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `assetpack`: pack an app's asset tree into a bundle, and put a bundle on writable storage.
@main
struct AssetPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpack",
        abstract: "Ship asset trees inside apps and put them on writable storage at first launch.",
        version: "0.1.0",
        subcommands: [BuildCommand.self, ExpandCommand.self, ListCommand.self, VerifyCommand.self]
    )

    /// Ignores SIGXFSZ before anything runs: a write past the file-size limit (`ulimit -f`) then fails with
    /// EFBIG and is reported like any other write error, instead of killing the process mid-file.
    static func main() {
        signal(SIGXFSZ, SIG_IGN)
        main(nil)
    }
}
