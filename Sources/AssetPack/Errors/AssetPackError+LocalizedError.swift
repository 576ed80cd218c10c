import Foundation

/// What Foundation shows of an ``AssetPackError``: `localizedDescription` (and an alert's message) is the
/// one line of ``AssetPackError/description`` — the file and what went wrong — instead of "The operation
/// could not be completed"; the reason and the suggestion depend on the ``AssetPackError/code``.
extension AssetPackError: LocalizedError {
    /// The error's one line: `PATH: MESSAGE`.
    public var errorDescription: String? { description }

    /// Why the operation failed, for the kind of failure (one sentence).
    public var failureReason: String? { code.failureReason }

    /// What to do about it (one sentence), or nil when nothing can be suggested.
    public var recoverySuggestion: String? { code.recoverySuggestion }
}

extension AssetPackError.Code {
    /// One sentence per code; an unknown code gets a general one.
    var failureReason: String {
        switch self {
        case .notFound: "A file or folder the operation needs does not exist."
        case .unsafePath: "A name in the assets could point outside the destination, or is too long, so it was refused."
        case .conflict: "Two entries of the assets would land on the same place."
        case .symlink: "The assets hold a symbolic link, which is refused unless links are allowed and stay inside the destination."
        case .archive: "An archive is damaged or uses a form that cannot be read."
        case .manifest: "The bundle's manifest is missing, malformed, or does not match the bundle."
        case .verification: "Data does not match the size or checksum the bundle records."
        case .noSpace: "There is not enough free space for the assets."
        case .io: "The system could not read or write a file."
        case .limitExceeded: "The assets exceed a safety limit (entries, size or compression ratio)."
        case .cancelled: "The operation was cancelled."
        case .invalidArgument: "A path or option given to the operation cannot be used."
        case .unsupported: "The assets hold something that is not supported (a special file, encryption, or a compression method other than stored and deflate)."
        default: "The operation failed (\(rawValue))."
        }
    }

    /// One sentence per code, or nil.
    var recoverySuggestion: String? {
        switch self {
        case .notFound: "Check that the bundle is part of the app and that the path is right."
        case .unsafePath, .conflict, .symlink, .unsupported: "Rebuild the bundle from the asset folder with assetpack build."
        case .archive, .manifest, .verification: "Rebuild or reinstall the app: the bundle it ships is damaged."
        case .noSpace: "Free some space and try again; the work done so far is kept and resumed."
        case .io: "Check the permissions and the storage, then try again; the work done so far is kept and resumed."
        case .limitExceeded: "Raise the limit in ExpansionOptions if the assets are trusted."
        case .cancelled: "Start the install again; it resumes where it stopped."
        case .invalidArgument: "Choose a destination folder that the app owns, such as one in Application Support."
        default: nil
        }
    }
}
