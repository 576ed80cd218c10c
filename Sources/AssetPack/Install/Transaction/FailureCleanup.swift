import AssetPackSystem

/// What a failed install leaves beside the destination, decided from the error's code alone — the one
/// place that rule lives (the README's security section states it):
///
/// | error | kind | left behind |
/// | --- | --- | --- |
/// | `cancelled`; `io` (EIO, EROFS, EACCES, EFBIG, … and zlib); `no-space` from a system call (ENOSPC while writing); `network` (a delivered bundle's server out of reach) | ``Kind/interrupted`` | the staging tree with its verified files, for the next call to resume |
/// | `no-space` without a system call: the free-space check made before writing | ``Kind/refusedBeforeWriting`` | nothing this call made; a staging tree an earlier call left for the same source stays as it was |
/// | every other code: `archive` (CRC-32, deflate data, sizes, headers), `limit-exceeded`, `unsafe-path`, `conflict`, `symlink`, `unsupported`, `manifest`, `verification`, `not-found`, `invalid-argument` | ``Kind/badInput`` | nothing: the staging tree is removed, whoever made it |
///
/// A kill or a crash runs no code at all, so it always leaves the staging tree to resume. In every kind,
/// the parent folders the call created are removed again when they are empty (``FileSystem/removeEmptyDirectories(_:)``),
/// so a kept staging tree keeps the folders it lies in.
enum FailureCleanup {
    /// Why an install failed, as far as what it wrote is concerned.
    enum Kind: Equatable {
        /// A fault of the machine or the process, gone on a later call: resuming helps.
        case interrupted
        /// A check made before writing refused: a later call may pass it, but nothing was written to resume.
        case refusedBeforeWriting
        /// The input cannot give the tree: a later call with the same input fails the same way.
        case badInput
    }

    /// The kind of `error` (see the table above).
    static func kind(of error: AssetPackError) -> Kind {
        switch error.code {
        case .cancelled, .io, .network: .interrupted
        case .noSpace: error.cause == nil ? .refusedBeforeWriting : .interrupted
        default: .badInput
        }
    }

    /// After `error` ended an install that had prepared the staging tree `name` in `parent` (`createdStaging`:
    /// this call made it, rather than resuming an earlier call's): removes it unless resuming helps.
    /// Best effort: a failure to remove is not reported over the error that ended the install.
    static func afterFailure(_ error: AssetPackError, staging name: String, in parent: Descriptor, createdStaging: Bool) {
        switch kind(of: error) {
        case .interrupted: return
        case .refusedBeforeWriting: if !createdStaging { return }
        case .badInput: break
        }
        try? TreeRemoval.remove(name, in: parent)
    }
}
