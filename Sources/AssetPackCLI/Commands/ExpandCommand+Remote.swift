import ArgumentParser
import AssetPack
import AssetPackRemote
import AssetPackSystem
import Foundation

/// `expand https://host/path/app.bundle --to DIR`: the options of a bundle on a server.
struct RemoteOptions: ParsableArguments {
    @Flag(help: "Allow a plain http:// bundle URL (a loopback or trusted network); by default only https://.")
    var allowHTTP = false

    @Option(name: .customLong("public-key"),
            help: ArgumentHelp("Install a bundle from a server only when its manifest is signed by this public key (from `assetpack keygen`); repeat it to trust several keys.",
                               valueName: "keyfile"), completion: .file(extensions: ["pub"]))
    var publicKeys: [String] = []

    @Option(help: ArgumentHelp("Install a bundle from a server only when it has this identity (64 hex digits, as build, expand and status print it).",
                               valueName: "hex"))
    var identity: String?

    @Option(name: .customLong("mirror"),
            help: ArgumentHelp("The same bundle on another server, asked when the first fails (refused, cut "
                               + "mid-transfer, timed out, 5xx, a file missing); repeat it for several, asked in "
                               + "order.",
                               valueName: "url"))
    var mirrors: [String] = []

    @Option(help: ArgumentHelp("Refuse to download more than this much file data (e.g. 50M), exit status 77 (declined): --dry-run shows how much an update would fetch.",
                               valueName: "size"))
    var maxDownload: String?

    @Option(help: ArgumentHelp("Receive at most this many bytes per second over all connections (e.g. 1M), like curl's --limit-rate.",
                               valueName: "rate"))
    var limitRate: String?

    @Option(help: ArgumentHelp("A folder laid out as the bundle's tree (an older copy) whose files lend the chunks of large files they hold, instead of downloading them; repeat it for several.",
                               valueName: "dir"), completion: .directory)
    var seed: [String] = []

    /// True when `bundle` names a bundle on a server.
    static func isURL(_ bundle: String) -> Bool {
        let lower = bundle.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    /// Refuses these options beside a local bundle, and a server's bundle without a way to trust its manifest.
    func check(bundle: String, root: String?, verify: Bool) throws {
        guard Self.isURL(bundle) else {
            if allowHTTP || !publicKeys.isEmpty || identity != nil || !mirrors.isEmpty || maxDownload != nil
                || limitRate != nil || !seed.isEmpty {
                throw ValidationError("--allow-http, --public-key, --identity, --mirror, --max-download, --limit-rate "
                                      + "and --seed are for a bundle URL (https://…).")
            }
            return
        }
        if let mirror = mirrors.first(where: { !Self.isURL($0) || URL(string: $0) == nil }) {
            throw ValidationError("--mirror must be a bundle URL (https://…), not \(mirror).")
        }
        if root != nil || verify { throw ValidationError("--root, --verify and --repair are for a local bundle, not a URL.") }
        for (name, size) in [("--max-download", maxDownload), ("--limit-rate", limitRate)] where size.map(ByteCount.parse) == .some(nil) {
            throw ValidationError("\(name) must be a size in bytes (e.g. 512K, 50M), not \(size ?? "").")
        }
        if let limitRate, ByteCount.parse(limitRate) == 0 { throw ValidationError("--limit-rate must be more than 0 bytes a second.") }
        for folder in seed where (try? FileSystem.status(folder))??.kind != .directory {
            throw ValidationError("--seed \(folder) is not a folder.")
        }
        if publicKeys.isEmpty && identity == nil {
            throw ValidationError("A bundle from a server needs --public-key KEYFILE.pub or --identity HEX: its manifest is checked before anything is written.")
        }
        if let identity, ContentHash(hex: ContentIdentity.current(identity)) == nil {
            throw ValidationError("--identity must be a bundle's identity (64 hex digits), not \(identity).")
        }
    }

    /// What the manifest must satisfy.
    func trust() throws(AssetPackError) -> ManifestTrust {
        var keys: [PublicKey] = []
        for path in publicKeys { keys.append(try PublicKey(contentsOf: path)) }
        let pin = identity.flatMap { ContentHash(hex: ContentIdentity.current($0)) }
        if let pin { return keys.isEmpty ? .pinned(identity: pin) : .signed(by: keys, pinned: pin) }
        return .signed(by: keys)
    }

    /// How to talk to the server.
    var fetchOptions: FetchOptions {
        var options = FetchOptions()
        options.allowsPlainHTTP = allowHTTP
        options.maxBytesPerSecond = limitRate.flatMap(ByteCount.parse)
        options.consent = maxDownload.flatMap(ByteCount.parse).map(DownloadConsent.refuse(above:))
        options.seedFolders = seed
        return options
    }
}

extension ExpandCommand {
    /// Installs the bundle at the URL `bundle` on this thread (`RemoteBundle.installSynchronously`); Ctrl-C
    /// cancels it, which stops at the next file or block, fetches in flight included.
    func installRemote(_ options: ExpansionOptions, progress: @escaping @Sendable (ExpansionProgress) -> Void) throws -> ExpansionResult {
        let (bundle, trust, fetcher) = try remoteBundle()
        let cancellation = ExpansionCancellation()
        Interrupt.handle(stop: { cancellation.cancel() })
        return try bundle.installSynchronously(into: destination, trust: trust, options: options, fetcher: fetcher,
                                               progress: progress, cancellation: cancellation)
    }

    /// What `installRemote` would do (`--dry-run`).
    func previewRemote(_ options: ExpansionOptions) throws -> InstallPreview {
        let (bundle, trust, fetcher) = try remoteBundle()
        return try bundle.dryRun(into: destination, trust: trust, options: options, fetcher: fetcher)
    }

    /// The bundle at the URL given (and its mirrors), the trust its manifest needs, and the fetcher the options
    /// describe.
    private func remoteBundle() throws -> (RemoteBundle, ManifestTrust, RemoteFetcher) {
        let fetcher = RemoteFetcher(options: remote.fetchOptions)
        var urls: [URL] = []
        for text in [bundle] + remote.mirrors {
            guard let url = URL(string: text) else { throw AssetPackError(.invalidArgument, "not a URL", path: text) }
            try fetcher.options.check(url)
            urls.append(url)
        }
        return (RemoteBundle(urls[0], mirrors: Array(urls.dropFirst())), try remote.trust(), fetcher)
    }
}
