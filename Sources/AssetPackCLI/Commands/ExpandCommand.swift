import ArgumentParser

/// `assetpack expand`: placeholder until the expander lands.
struct ExpandCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "expand", abstract: "Expand a bundle onto storage.")
    func run() throws { Reporting.fail("expand is not implemented yet") }
}
