import ArgumentParser
import AssetPackSystem

/// `assetpack`: pack an app's asset tree into a bundle, and put a bundle on writable storage.
@main
struct AssetPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpack",
        abstract: "Ship asset trees inside apps and put them on writable storage at first launch.",
        version: "0.1.0",
        subcommands: [BuildCommand.self, ExpandCommand.self, ListCommand.self, VerifyCommand.self, CheckCommand.self,
                      StatusCommand.self, UninstallCommand.self]
    )

    /// Ignores SIGXFSZ before anything runs: a write past the file-size limit (`ulimit -f`) then fails with
    /// EFBIG and is reported like any other write error, instead of killing the process mid-file.
    /// On glibc, also fixes the size from which allocations get their own mapping at its default 128 KiB:
    /// glibc otherwise raises it after the first large block is freed, and the large arrays of a plan
    /// then stay in the heap after they are freed (a 50,000-file expansion peaked 5 MB higher).
    static func main() {
        CurrentProcess.ignoreFileSizeLimitSignal()
        CurrentProcess.setMallocMapThreshold(128 * 1024)
        main(nil)
    }
}
