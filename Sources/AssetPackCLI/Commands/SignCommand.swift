import ArgumentParser
import AssetPack
import AssetPackRemote

/// `assetpack sign BUNDLE --key KEYFILE`: sign an existing bundle folder's manifest.
struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Sign a bundle folder's manifest with a private key: writes assetpack-meta/manifest.sig.",
        discussion: """
            What is signed is the SHA-256 of the manifest, which lists every file with its SHA-256, so the signature \
            vouches for every byte of the bundle. \
            `expand URL --public-key KEYFILE.pub` refuses a bundle whose signature is missing or does not verify \
            before it writes anything. `build --sign KEYFILE` builds and signs in one step.

            Examples:
              assetpack sign app.bundle --key release.key
            """
    )

    @Argument(help: ArgumentHelp("The bundle folder to sign.", valueName: "bundle"), completion: .directory)
    var bundle: String

    @OptionGroup var key: SigningKeyOption

    @OptionGroup var report: OutputOptions

    func run() throws {
        try Reporting.run {
            let signature = try BundleSigning.sign(bundle: report.json ? JSONReport.absolute(bundle) : bundle, with: try key.load())
            if report.json {
                let folder = JSONReport.absolute(bundle)
                JSONReport.print(SignReport(bundle: folder, signature: folder + "/" + ManifestSignature.path,
                                            keyID: signature.keyID), command: "sign")
            } else if !report.quiet {
                print("signed \(bundle) with key \(signature.keyID)")
            }
        }
    }
}

/// `--key <keyfile>`: the private key `sign` uses.
struct SigningKeyOption: ParsableArguments {
    @Option(name: .customLong("key"), help: ArgumentHelp("The private key file (from `assetpack keygen`).", valueName: "keyfile"),
            completion: .file())
    var path: String

    /// The key in the file.
    func load() throws(AssetPackError) -> SigningKey { try SigningKey(contentsOf: path) }
}

/// The `--json` line of `sign`: the bundle and the signature file written, absolute, and the signing key's ID.
struct SignReport: Encodable {
    var bundle: String
    var signature: String
    var keyID: String
}
