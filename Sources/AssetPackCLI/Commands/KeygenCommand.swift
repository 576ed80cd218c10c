import ArgumentParser
import AssetPack
import AssetPackRemote
import AssetPackSystem

/// `assetpack keygen --out KEYFILE`: make an Ed25519 key pair for signing bundles.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair that signs bundles: KEYFILE (private, mode 0600) and KEYFILE.pub.",
        discussion: """
            Keep KEYFILE secret and use it with `build --sign` or `sign`; ship KEYFILE.pub in the app (or pass it to \
            `expand URL --public-key`), which then installs only bundles it signed. Neither file is ever replaced.

            Examples:
              assetpack keygen --out release.key
            """
    )

    @Option(name: .customLong("out"), help: ArgumentHelp("The private key file to write; the public key goes to <keyfile>.pub.",
                                                           valueName: "keyfile"), completion: .file())
    var out: String

    @OptionGroup var report: OutputOptions

    func run() throws {
        try Reporting.run {
            // Not NSString's deletingLastPathComponent: Foundation on Linux traps on a one-letter name.
            let folder = out.lastIndex(of: "/").map { String(out[..<$0]) } ?? ""
            if !folder.isEmpty, (try? FileSystem.status(folder, followingLinks: true))??.kind != .directory {
                throw AssetPackError(.notFound, "no such folder to write the keys into", path: folder)
            }
            let key = SigningKey.generate()
            try key.publicKey.write(to: out + ".pub")
            try key.write(to: out)
            if report.json {
                JSONReport.print(KeyReport(privateKey: JSONReport.absolute(out), publicKey: JSONReport.absolute(out + ".pub"),
                                           keyID: key.publicKey.keyID), command: "keygen")
            } else if !report.quiet {
                print("wrote \(out) (private: keep it secret) and \(out).pub (public: ship it in the app), key \(key.publicKey.keyID)")
            }
        }
    }
}

/// The `--json` line of `keygen`: the two files written, absolute, and the key's ID.
struct KeyReport: Encodable {
    var privateKey: String
    var publicKey: String
    var keyID: String
}
