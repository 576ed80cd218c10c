import ArgumentParser

/// `assetpack build SRC`: placeholder until the packer lands.
struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "build", abstract: "Pack an asset folder into a bundle.")
    func run() throws { Reporting.fail("build is not implemented yet") }
}
