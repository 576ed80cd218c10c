import AssetPackSystem

/// Reads `installed.json` (``InstallRecord``) from its file 64 KiB at a time (``JSONPullParser``), for the upgrade path: a
/// record of 50,000 files is about 10 MB of text, and reading it whole and decoding it with `JSONDecoder`
/// would add tens of MiB to the peak memory of an upgrade. Only the record's own shape is accepted — an
/// object whose `files` is an array of objects with `path` (string), `size` and `mode` (unsigned
/// integers), an optional `crc32` (unsigned integer or `null`) and an optional `sha256` (string), plus
/// `format`, `stamp`, an optional `source`, and optional `directories` (`path`, `mode`) and `links`
/// (`path`, `target`) — with keys in any order, any white space, and unknown members skipped. Anything else (bad
/// syntax, invalid UTF-8, a number that does not fit, a missing field) makes the whole record unreadable:
/// the tree is then treated as unknown and nothing in it is reused.
struct InstallRecordReader {
    /// The record's text, a chunk at a time (``JSONPullParser``).
    private let parser: JSONPullParser

    private init(_ parser: JSONPullParser) { self.parser = parser }

    /// Reads the record in `file` a piece at a time, handing each file, folder and link to the closures as
    /// it is read, in the order written; its other fields, or nil when it is not a record (what was
    /// handed over until then must then be dropped). What ``InstalledTreeCheck`` indexes, never whole.
    static func read(_ file: Descriptor, limit: Int, eachFile: (InstallRecord.File) -> Void,
                     eachDirectory: (InstallRecord.Directory) -> Void, eachLink: (InstallRecord.Link) -> Void) -> Header? {
        // The code is never shown: an unreadable record is only nil.
        let parser = JSONPullParser(chunkSize: 64 << 10, limit: limit, code: .io, origin: file.path) { (buffer) throws(AssetPackError) in
            try io(file.fd.read(into: buffer, path: file.path))
        }
        return try? InstallRecordReader(parser).record(eachFile: eachFile, eachDirectory: eachDirectory, eachLink: eachLink)
    }

    /// The record in `bytes`, or nil when it is not one (for tests).
    static func read(bytes: [UInt8]) -> InstallRecord? {
        let reader = InstallRecordReader(JSONPullParser(bytes: bytes, code: .io, origin: "installed.json"))
        var files: [InstallRecord.File] = [], directories: [InstallRecord.Directory] = [], links: [InstallRecord.Link] = []
        let header = try? reader.record(eachFile: { files.append($0) }, eachDirectory: { directories.append($0) },
                                        eachLink: { links.append($0) })
        guard let header else { return nil }
        return InstallRecord(format: header.format, stamp: header.stamp, files: files, source: header.source,
                             directories: header.listsDirectories ? directories : nil, links: header.listsLinks ? links : nil)
    }

    /// The record's fields other than its lists, and which optional lists it has.
    typealias Header = (format: Int, stamp: String, source: String?, listsDirectories: Bool, listsLinks: Bool)

    /// Reads the record, handing each file, folder and link to the closures; returns the rest.
    private func record(eachFile: (InstallRecord.File) -> Void, eachDirectory: (InstallRecord.Directory) -> Void,
                        eachLink: (InstallRecord.Link) -> Void) throws(AssetPackError) -> Header {
        var sawFiles = false, sawDirectories = false, sawLinks = false
        var format: Int?
        var stamp: String?
        var source: String?
        try parser.enterObject()
        while let name = try parser.nextMember() {
            switch name {
            case "files":
                try files(eachFile)
                sawFiles = true
            case "directories":
                try pathElements(with: "mode", { () throws(AssetPackError) in UInt32(try parser.unsigned(max: UInt64(UInt32.max))) }) {
                    eachDirectory(InstallRecord.Directory(mode: $1, path: $0))
                }
                sawDirectories = true
            case "links":
                try pathElements(with: "target", { () throws(AssetPackError) in try parser.string() }) {
                    eachLink(InstallRecord.Link(path: $0, target: $1))
                }
                sawLinks = true
            case "format": format = Int(try parser.unsigned(max: UInt64(Int.max)))
            case "stamp": stamp = try parser.string()
            case "source": source = try parser.takeNull() ? nil : try parser.string()
            default: try parser.skipValue()
            }
        }
        try parser.finish()
        guard sawFiles, let format, let stamp else { throw parser.refusal("the record lacks \"files\", \"format\" or \"stamp\"") }
        return (format, stamp, source, sawDirectories, sawLinks)
    }

    /// Reads an array of objects that each have `path` (a string) and the member `key`, read by `value`,
    /// and hands both to `each`; other members are skipped.
    private func pathElements<Value>(with key: StaticString, _ value: () throws(AssetPackError) -> Value,
                                     _ each: (String, Value) -> Void) throws(AssetPackError) {
        try parser.enterArray()
        while try parser.nextElement() {
            var path: String?
            var found: Value?
            try parser.enterObject()
            while let name = try parser.nextMember() {
                if "path" ~= name {
                    path = try parser.string()
                } else if key ~= name {
                    found = try value()
                } else {
                    try parser.skipValue()
                }
            }
            guard let path, let found else { throw parser.refusal("an element lacks \"path\" or \"\(key)\"") }
            each(path, found)
        }
    }

    private func files(_ eachFile: (InstallRecord.File) -> Void) throws(AssetPackError) {
        try parser.enterArray()
        while try parser.nextElement() {
            var path: String?
            var size: UInt64?
            var crc32: UInt32?
            var mode: UInt32?
            var sha256: String?
            try parser.enterObject()
            while let name = try parser.nextMember() {
                switch name {
                case "path": path = try parser.string()
                case "size": size = try parser.unsigned(max: .max)
                case "crc32": crc32 = try parser.takeNull() ? nil : UInt32(try parser.unsigned(max: UInt64(UInt32.max)))
                case "mode": mode = UInt32(try parser.unsigned(max: UInt64(UInt32.max)))
                case "sha256": sha256 = try parser.takeNull() ? nil : try parser.string()
                default: try parser.skipValue()
                }
            }
            guard let path, let size, let mode else { throw parser.refusal("a file lacks \"path\", \"size\" or \"mode\"") }
            eachFile(InstallRecord.File(path: path, size: size, crc32: crc32, mode: mode, sha256: sha256))
        }
    }
}
