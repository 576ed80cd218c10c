import AssetPack
import Foundation

/// What a build did: counts, bytes in and out, time. Printed by `assetpack build` at the end, as text or
/// (with `--json`) as this value encoded.
public struct BuildSummary: Codable, Sendable, Equatable {
    /// The source folder.
    public var source: String
    /// The bundle folder or archive written.
    public var output: String
    /// `folder` or `archive`.
    public var form: String
    /// The bundle's content identity (see `ContentIdentity`).
    public var identity: String
    /// Logical files.
    public var files: Int = 0
    /// Logical folders.
    public var directories: Int = 0
    /// Files put in a zip (folder form) or written as large entries (archive form).
    public var packed: Int = 0
    /// Of ``packed``, those stored rather than deflated: members of pack archives at ``PackingRules/packLevel`` 0
    /// (the default), and files that deflate would not shrink enough.
    public var stored: Int = 0
    /// Of ``packed``, those whose archive was taken unchanged from the previous bundle.
    public var reused: Int = 0
    /// Bytes of all logical files.
    public var bytesIn: UInt64 = 0
    /// Bytes of everything written: plain copies, archives, and the manifest (the archive's size, for `--archive`).
    public var bytesOut: UInt64 = 0
    /// Wall-clock seconds.
    public var seconds: Double = 0

    /// Creates an empty summary.
    public init(source: String, output: String, form: String, identity: String = "") {
        self.source = source
        self.output = output
        self.form = form
        self.identity = identity
    }

    /// ``bytesOut`` / ``bytesIn`` (1 for an empty tree).
    public var ratio: Double { bytesIn == 0 ? 1 : Double(bytesOut) / Double(bytesIn) }

    /// The summary as pretty JSON with sorted keys: ``report`` encoded.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(report)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// The summary as ``json()`` writes it, for an encoder of the caller's (`assetpack build --json`): the
    /// stored fields, `seconds` rounded to milliseconds, and ``ratio`` to four decimal places beside them.
    public var report: some Encodable & Sendable { Report(summary: self) }

    /// The JSON form: the stored fields, and ``ratio`` beside them.
    private struct Report: Encodable, Sendable {
        var summary: BuildSummary

        private enum CodingKeys: String, CodingKey { case ratio }

        func encode(to encoder: any Encoder) throws {
            var shown = summary
            shown.seconds = (summary.seconds * 1000).rounded() / 1000
            try shown.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode((summary.ratio * 10000).rounded() / 10000, forKey: .ratio)
        }
    }

    /// A few lines for a person (an `--archive` build's second line ends at its folders, one zip holding all):
    /// ```
    /// built assets.bundle from assets
    ///   14 files, 6 folders; 1 packed (0 stored, 0 reused)
    ///   1.4 MiB in, 380.2 KiB out (26.4%) in 0.08 s
    /// ```
    /// The share is left out when the output is more than twice the input (a tiny tree: the manifest dominates).
    public var text: String {
        func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
        let what = counted(files, "file") + ", " + counted(directories, "folder")
            + (form == "archive" ? "" : "; \(packed) packed (\(stored) stored, \(reused) reused)")
        let share = ratio > 2 ? "" : " (\((ratio * 1000).rounded() / 10)%)"
        return """
            built \(output) from \(source)
              \(what)
              \(ByteCount.text(bytesIn)) in, \(ByteCount.text(bytesOut)) out\(share) in \(String(format: "%.2f", seconds)) s
            """
    }
}

/// How far a build has got, reported after each file.
public struct BuildProgress: Sendable {
    /// Files done so far.
    public var filesDone: Int
    /// Files of the tree walked so far: the walk runs a batch ahead of the writing, and the total grows
    /// as it goes (a build streams the tree).
    public var fileCount: Int
    /// Bytes of the files done so far.
    public var bytesDone: UInt64
    /// Bytes of the files walked so far.
    public var totalBytes: UInt64
    /// The file just finished.
    public var path: String
}
