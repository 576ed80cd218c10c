import ArgumentParser
import AssetPack
import AssetPackSystem
import AssetPackZip

/// The exit status of `assetpack`, one per class of failure: the one place that maps error codes to
/// numbers. The numbers follow BSD's `sysexits.h` where it has the class, and the shell's 128 + SIGINT
/// for an interruption. `assetpack --help` and the README list them (``helpText``).
enum ExitStatus: Int32, CaseIterable {
    /// Success.
    case success = 0
    /// A failure of no other class (a bug, or an error from outside the libraries); and the answer of a check
    /// that found what differs (``differs``).
    case failure = 1
    /// An unknown command or option, a missing or malformed value, or a path that cannot be used
    /// (`invalid-argument`). `EX_USAGE`.
    case usage = 64
    /// The input is damaged: an archive, a manifest or a file that fails its checks (`archive`,
    /// `manifest`, `verification`). `EX_DATAERR`.
    case damagedInput = 65
    /// The input does not exist (`not-found`). `EX_NOINPUT`.
    case inputNotFound = 66
    /// A server could not be reached or kept failing after the retries (`network`): run again later, it
    /// resumes. `EX_UNAVAILABLE`.
    case network = 69
    /// Reading or writing failed (`io`). `EX_IOERR`.
    case io = 74
    /// Not enough free space (`no-space`): free some and run again, it resumes. `EX_TEMPFAIL`.
    case noSpace = 75
    /// The input asks for something assetpack refuses: an unsafe name, a conflict, a symbolic link, an
    /// unsupported entry or method, a limit exceeded (`unsafe-path`, `conflict`, `symlink`,
    /// `unsupported`, `limit-exceeded`), a download larger than `--max-download` (`declined`). `EX_NOPERM`.
    case refused = 77
    /// A bundle from a server is not the one the app trusts: its manifest's signature is missing, by another key
    /// or does not verify, or the bundle does not have the pinned identity (`untrusted`); nothing was written.
    /// Outside `sysexits.h`, which has no class for it.
    case untrusted = 79
    /// Interrupted (Ctrl-C, `cancelled`): run the same command again to resume. 128 + SIGINT.
    case interrupted = 130

    /// The answer of `check`, `status` and `expand --verify` when they find something that differs from what
    /// it should be: not a failure to run, the command's answer.
    static let differs = failure

    /// The class of a runtime error.
    init(_ error: AssetPackError) {
        if let zipError = error.zipError {
            self.init(zipError)
            return
        }
        self = switch error.code {
        case .invalidArgument: .usage
        case .archive, .manifest, .verification: .damagedInput
        case .notFound: .inputNotFound
        case .io: .io
        case .noSpace: .noSpace
        case .unsafePath, .conflict, .symlink, .unsupported, .limitExceeded, .declined: .refused
        case .cancelled: .interrupted
        case .network: .network
        case .untrusted: .untrusted
        default: .failure
        }
    }

    /// The class of a zip-layer error.
    init(_ error: ZipError) {
        self = switch error.code {
        case .format, .truncated, .checksum, .sizeMismatch, .corruptData, .headerMismatch, .overlap, .verification:
            .damagedInput
        case .unsupportedMethod, .encrypted, .unsupportedFeature, .needsRandomAccess, .limitExceeded: .refused
        case .notFound: .inputNotFound
        case .io where error.errno == Errno.noSpace.rawValue: .noSpace
        case .io where error.errno == Errno.noSuchFileOrDirectory.rawValue: .inputNotFound
        case .io, .zlib: .io
        case .invalidArgument: .usage
        case .cancelled: .interrupted
        default: .failure
        }
    }

    /// The class of any error a command can end with (argument-parser's own errors included).
    init(any error: any Error) {
        switch error {
        case let error as AssetPackError: self.init(error)
        case let error as ZipError: self.init(error)
        default: self = ExitStatus(rawValue: AssetPackCommand.exitCode(for: error).rawValue) ?? .failure
        }
    }

    /// One word for the class, as the JSON error report names it.
    var name: String {
        switch self {
        case .success: "success"
        case .failure: "failure"
        case .usage: "usage"
        case .damagedInput: "damaged-input"
        case .inputNotFound: "not-found"
        case .io: "io"
        case .noSpace: "no-space"
        case .refused: "refused"
        case .network: "network"
        case .untrusted: "untrusted"
        case .interrupted: "interrupted"
        }
    }

    /// What the status means, for the table in `--help`.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "differs (check, status, expand --verify), or a failure of no other class"
        case .usage: "usage: an unknown command or option, a bad value, an unusable path"
        case .damagedInput: "damaged input: an archive, manifest or file that fails its checks"
        case .inputNotFound: "the input does not exist"
        case .io: "reading or writing failed"
        case .noSpace: "not enough free space (free some and run again: it resumes)"
        case .refused: "refused: unsafe names, conflicts, links, unsupported entries, limits"
        case .network: "network: a server out of reach or failing after retries (it resumes)"
        case .untrusted: "untrusted: a server's bundle failed its signature or pinned identity"
        case .interrupted: "interrupted (Ctrl-C): run the same command again to resume"
        }
    }

    /// The table for `--help`: `  64   usage: …`, one line per status.
    static var helpText: String {
        allCases.map { "  \(String($0.rawValue).padding(toLength: 5, withPad: " ", startingAt: 0))\($0.meaning)" }
            .joined(separator: "\n")
    }
}
