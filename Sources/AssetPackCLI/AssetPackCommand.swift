import ArgumentParser

/// `assetpack`: pack an app's asset tree into a bundle, and put a bundle on writable storage.
@main
struct AssetPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assetpack",
        abstract: "Ship asset trees inside apps and put them on writable storage at first launch.",
        version: "0.1.0",
        subcommands: [BuildCommand.self, ExpandCommand.self, ListCommand.self, VerifyCommand.self]
    )
}
