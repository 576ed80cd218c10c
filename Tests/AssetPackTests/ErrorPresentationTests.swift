import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// ``AssetPackError`` as Foundation shows it (`LocalizedError`).
@Suite struct ErrorPresentationTests {
    @Test func localizedDescriptionIsTheOneLineWithPathAndMessage() {
        let error = AssetPackError(.noSpace, "needs 12.0 MiB, 3.0 MiB free", path: "/data/assets")
        let shown: any Error = error
        #expect(shown.localizedDescription == "/data/assets: needs 12.0 MiB, 3.0 MiB free")
        #expect(error.errorDescription == error.description)
        #expect(error.failureReason == "There is not enough free space for the assets.")
        #expect(error.recoverySuggestion == "Free some space and try again; the work done so far is kept and resumed.")
    }

    @Test(arguments: [AssetPackError.Code.notFound, .unsafePath, .conflict, .symlink, .archive, .manifest, .verification,
                      .noSpace, .io, .limitExceeded, .cancelled, .invalidArgument, .unsupported])
    func everyCodeHasAReasonAndASuggestion(code: AssetPackError.Code) {
        let error = AssetPackError(code, "message")
        #expect(error.localizedDescription == "message")
        #expect(error.failureReason?.hasSuffix(".") == true)
        #expect(error.recoverySuggestion?.hasSuffix(".") == true)
        #expect(error.failureReason != AssetPackError(AssetPackError.Code(rawValue: "other"), "").failureReason)
    }

    @Test func anUnknownCodeStillReadsAsASentence() {
        let error = AssetPackError(AssetPackError.Code(rawValue: "new-kind"), "message")
        #expect(error.failureReason == "The operation failed (new-kind).")
        #expect(error.recoverySuggestion == nil)
    }

    @Test func aFailedInstallShowsTheArchiveAndTheReason() throws {
        let scratch = try TemporaryDirectory("error-localized")
        try ExpansionFixtures.zip(at: scratch.file("tree/evil.zip"), [("../evil.txt", [1], .stored)])
        do {
            try AssetInstaller(source: DirectorySource(root: scratch.file("tree")), destination: scratch.file("a")).installSynchronously()
            Issue.record("the install succeeded")
        } catch {
            let shown: any Error = error
            #expect(shown.localizedDescription == error.description)
            #expect(shown.localizedDescription.contains("evil.zip"))
            #expect(!shown.localizedDescription.contains("The operation could not be completed"))
        }
    }
}
