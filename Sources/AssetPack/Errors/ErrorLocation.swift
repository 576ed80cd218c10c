import AssetPackZip

/// Where the bytes an error is about lie, in the two parts ``AssetPackError`` keeps apart: the file or
/// folder on disk (``file``, its ``AssetPackError/path``) and, for an archive stored in a source, that
/// archive's path in it (``member``, its ``AssetPackError/entry``): `app.zip: pk/inner.zip: entry "x": …`.
struct ErrorLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file or folder on disk, as given: an archive or file itself, or the source that holds ``member``.
    let file: String
    /// The path in ``file`` of the archive concerned, when it is stored there; nil for ``file`` itself.
    let member: String?

    /// `file`, or the archive stored at `member` of the source at `file`.
    init(_ file: String, member: String? = nil) {
        self.file = file
        self.member = member
    }

    /// `FILE`, or `FILE: MEMBER`.
    var description: String { member.map { "\(file): \($0)" } ?? file }

    /// An error about this place, or about its entry `entry` (an archive's entry name, named by `message`
    /// too): the path is ``file``; the entry is ``member`` when there is one (the message then starts
    /// with it), else `entry`.
    func error(_ code: AssetPackError.Code, _ message: String, entry: String? = nil) -> AssetPackError {
        AssetPackError(code, member.map { "\($0): \(message)" } ?? message, path: file, entry: member ?? entry)
    }

    /// A zip-layer error about this archive or one of its entries. For an archive stored in a source, the
    /// error's archive becomes ``member`` (whatever name the archive was read under: a byte range of the
    /// source, a spooled copy), its path ``file`` and its entry ``member``, so it reads
    /// `FILE: MEMBER: entry "NAME": …`; otherwise its archive is ``file`` when it names none.
    func error(_ zipError: ZipError) -> AssetPackError {
        guard let member else { return AssetPackError(zipError.inArchive(file)) }
        var located = zipError
        located.archive = member
        var error = AssetPackError(located, path: file)
        error.entry = member
        return error
    }
}
