import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// What ``writeSampleArchive(to:options:)`` puts in an archive, besides ``SourceTree``.
enum WrittenSample {
    static let unicodeName = "données/日本語 ünïcode.txt"
    static let unicodeData = Array("こんにちは, zip".utf8)
    /// A UTF-8 name streamed with an unknown size: its local header holds reserved room, its central one not.
    static let streamedUnicodeName = "données/flux ünï.txt"
    static let symlinkName = "link-to-text"
    static let emptyName = "empty-streamed.bin"
}

/// Writes ``SourceTree`` (with directories, half the files streamed with an unknown size, `random.bin`
/// stored), a UTF-8 name, a symlink and an empty streamed file. Returns what the writer reported.
@discardableResult
func writeSampleArchive(to path: String, options: ZipWriterOptions) throws -> [WrittenEntry] {
    let writer = try ZipWriter(path: path, options: options)
    var written: [WrittenEntry] = []
    for directory in SourceTree.directories { try writer.addDirectory(directory) }
    for (index, (name, bytes)) in SourceTree.files.sorted(by: { $0.key < $1.key }).enumerated() {
        let method: CompressionMethod = name == "random.bin" || name == "empty.txt" ? .stored : .deflate
        if index.isMultiple(of: 2) {
            written.append(try writer.addFile(name, contents: bytes, method: method, permissions: 0o640))
        } else {
            written.append(try writer.addFile(name, from: MemoryStream(bytes), size: nil, method: method, permissions: 0o640))
        }
    }
    written.append(try writer.addFile(WrittenSample.unicodeName, contents: WrittenSample.unicodeData))
    written.append(try writer.addFile(WrittenSample.streamedUnicodeName, from: MemoryStream(WrittenSample.unicodeData), size: nil))
    written.append(try writer.addFile(WrittenSample.emptyName, from: MemoryStream([]), size: nil))
    try writer.addSymlink(WrittenSample.symlinkName, target: "text.txt")
    try writer.addFile("bin/tool", contents: Array("#!/bin/sh\n".utf8), permissions: 0o755)
    try writer.finish(comment: "written by ZipWriter")
    return written
}

/// Checks the sample archive with the external tools that can read it (each required: CI installs them).
/// `unzip` and Python always; `jar`, `bsdtar` and `7z` when `thorough` (they are slow to start).
func checkWithExternalTools(_ path: String, in directory: TemporaryDirectory, thorough: Bool = true,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
    try ExternalTool.unzip.require()
    try shell("unzip -tq \"\(path)\"", in: directory.path, sourceLocation: sourceLocation)
    // In a locale that is not UTF-8 too (a container without LANG): unzip then converts UTF-8 names.
    try shell("unzip -tq \"\(path)\"", in: directory.path, environment: ["LANG": "C", "LC_ALL": "C"], sourceLocation: sourceLocation)

    try ExternalTool.python3.require()
    try directory.write("check.py", text: """
        import sys, zipfile
        archive, root = sys.argv[1], sys.argv[2]
        with zipfile.ZipFile(archive) as zf:
            bad = zf.testzip()
            if bad is not None:
                sys.exit('testzip failed at ' + bad)
            for info in zf.infolist():
                if info.is_dir() or (info.external_attr >> 16) & 0o170000 == 0o120000:
                    continue
                try:
                    expected = open(root + '/' + info.filename, 'rb').read()
                except FileNotFoundError:
                    continue
                if zf.read(info) != expected:
                    sys.exit('content differs: ' + info.filename)
        """)
    try shell("python3 check.py \"\(path)\" src", in: directory.path, sourceLocation: sourceLocation)

    guard thorough else { return }
    try ExternalTool.jar.require()
    let listing = try shell("jar tf \"\(path)\"", in: directory.path, sourceLocation: sourceLocation)
    #expect(listing.stdout.contains("dir/sub/nested.txt"), sourceLocation: sourceLocation)

    try ExternalTool.bsdtar.require()
    try shell("bsdtar -tf \"\(path)\" > /dev/null && rm -rf x && mkdir x && bsdtar -xf \"\(path)\" -C x && "
              + "for f in $(cd src && find . -type f); do cmp \"src/$f\" \"x/$f\" || exit 1; done",
              in: directory.path, sourceLocation: sourceLocation)

    try ExternalTool.sevenZip.require()
    try shell("7z t -bso0 -bsp0 \"\(path)\"", in: directory.path, sourceLocation: sourceLocation)
}

/// Archives written by ZipWriter, checked by other tools.
@Suite struct InteropWriteTests {
    @Test(arguments: 0...9)
    func deflateLevelIsReadableEverywhere(level: Int) throws {
        let directory = try TemporaryDirectory("write-level")
        try SourceTree.write(in: directory)
        let path = directory.file("out.zip")
        try writeSampleArchive(to: path, options: ZipWriterOptions(level: level))
        try checkWithExternalTools(path, in: directory, thorough: [0, 1, 6, 9].contains(level))
        let archive = try ZipArchive(path: path)
        try expectSourceTree(in: archive)
        #expect(archive.comment == Array("written by ZipWriter".utf8))
        #expect(try archive.contents(of: archive.requireEntry(named: WrittenSample.unicodeName)) == WrittenSample.unicodeData)
        #expect(try archive.contents(of: archive.requireEntry(named: WrittenSample.streamedUnicodeName)) == WrittenSample.unicodeData)
        #expect(try archive.requireEntry(named: WrittenSample.emptyName).uncompressedSize == 0)
        #expect(try archive.contents(of: archive.requireEntry(named: WrittenSample.emptyName)) == [])
    }

    @Test func writtenEntriesCarryModesKindsAndFlags() throws {
        try ExternalTool.python3.require()
        let directory = try TemporaryDirectory("write-modes")
        let path = directory.file("out.zip")
        try writeSampleArchive(to: path, options: ZipWriterOptions())
        let archive = try ZipArchive(path: path)
        let link = try archive.requireEntry(named: WrittenSample.symlinkName)
        #expect(link.kind == .symlink)
        #expect(try archive.contents(of: link) == Array("text.txt".utf8))
        #expect(try archive.requireEntry(named: "dir/").kind == .directory)
        #expect(try archive.requireEntry(named: "bin/tool").isExecutable)
        #expect(try archive.requireEntry(named: "text.txt").permissions == 0o640)
        #expect(try archive.requireEntry(named: "random.bin").method == .stored)
        let unicode = try archive.requireEntry(named: WrittenSample.unicodeName)
        #expect(unicode.flags & GeneralPurposeFlag.utf8 != 0)
        #expect(try archive.requireEntry(named: "text.txt").flags & GeneralPurposeFlag.utf8 == 0)
        #expect(archive.entries.allSatisfy { !$0.hasDataDescriptor })

        // Python agrees about the symlink and the directory.
        try ExternalTool.python3.require()
        let check = try shell("""
            python3 -c "import zipfile; z = zipfile.ZipFile('out.zip'); \
            print(oct(z.getinfo('\(WrittenSample.symlinkName)').external_attr >> 16), z.getinfo('dir/').is_dir())"
            """, in: directory.path)
        #expect(check.stdout == "0o120777 True\n")
    }

    @Test(arguments: [4, 4096])
    func storedDataIsAligned(alignment: Int) throws {
        let directory = try TemporaryDirectory("write-align")
        try SourceTree.write(in: directory)
        let path = directory.file("aligned.zip")
        let written = try writeSampleArchive(to: path, options: ZipWriterOptions(storedAlignment: alignment))
        for entry in written where entry.method == .stored {
            #expect(entry.dataOffset % UInt64(alignment) == 0, "\(entry.name) data at \(entry.dataOffset)")
        }
        let archive = try ZipArchive(path: path)
        for entry in archive.entries where entry.method == .stored && entry.kind == .file {
            let offset = try LocalHeaderCheck.dataOffset(of: entry, in: archive.source)
            #expect(offset % UInt64(alignment) == 0, "\(entry.name) data at \(offset)")
        }
        try expectSourceTree(in: archive)
        try checkWithExternalTools(path, in: directory)
    }

    @Test func deterministicOptionsGiveIdenticalBytes() throws {
        let directory = try TemporaryDirectory("write-deterministic")
        let options = ZipWriterOptions.deterministic(level: 9, storedAlignment: 4)
        try writeSampleArchive(to: directory.file("one.zip"), options: options)
        try writeSampleArchive(to: directory.file("two.zip"), options: options)
        let one = try fileBytes(directory.file("one.zip"))
        #expect(one == (try fileBytes(directory.file("two.zip"))))
        // Permissions are normalized: 0640 becomes 0644.
        let archive = try ZipArchive(path: directory.file("one.zip"))
        #expect(try archive.requireEntry(named: "text.txt").permissions == 0o644)
        #expect(try archive.requireEntry(named: "bin/tool").permissions == 0o755)
        let expectedTime = DOSDateTime(unixTime: ZipWriterOptions.sourceDateEpoch ?? 315_532_800)
        #expect(archive.entries.allSatisfy { $0.modified == expectedTime })
    }

    @Test func sourceDateEpochSetsEveryTimestamp() throws {
        #expect(ZipWriterOptions.sourceDateEpoch(from: "1700000000") == 1_700_000_000)
        #expect(ZipWriterOptions.sourceDateEpoch(from: " 1700000000\n") == 1_700_000_000)
        #expect(ZipWriterOptions.sourceDateEpoch(from: "soon") == nil)
        #expect(ZipWriterOptions.sourceDateEpoch(from: nil) == nil)
        let options = ZipWriterOptions(fixedTime: ZipWriterOptions.sourceDateEpoch(from: "1700000000"))

        try ExternalTool.unzip.require()
        let directory = try TemporaryDirectory("write-epoch")
        try writeSampleArchive(to: directory.file("e.zip"), options: options)
        let archive = try ZipArchive(path: directory.file("e.zip"))
        // 2023-11-14 22:13:20 UTC.
        #expect(archive.entries.allSatisfy { $0.modified.unixTime == 1_700_000_000 })
        let listing = try shell("unzip -Z -T e.zip text.txt", in: directory.path)
        #expect(listing.stdout.contains("20231114.221320"))

        // The variable as the process sees it is what `deterministic()` uses.
        let environment = getenv("SOURCE_DATE_EPOCH").map { String(cString: $0) }
        #expect(ZipWriterOptions.deterministic().fixedTime == ZipWriterOptions.sourceDateEpoch(from: environment) ?? 315_532_800)
    }

    #if os(Linux)
    /// Runs this test binary again with `SOURCE_DATE_EPOCH` set (setting it here would race with other
    /// tests reading the environment), and checks what `deterministic()` picks up there.
    @Test func deterministicReadsSourceDateEpochFromTheEnvironment() throws {
        if let expected = ProcessInfo.processInfo.environment["ASSETPACK_EXPECTED_EPOCH"] {
            #expect(ZipWriterOptions.deterministic().fixedTime == Int64(expected))
            return
        }
        let result = try run(CommandLine.arguments[0],
                             ["--testing-library", "swift-testing", "--filter", "deterministicReadsSourceDateEpochFromTheEnvironment"],
                             environment: ["SOURCE_DATE_EPOCH": "1700000000\n", "ASSETPACK_EXPECTED_EPOCH": "1700000000"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("passed") || result.stderr.contains("passed"))
    }
    #endif

    @Test func writerRejectsMisuse() throws {
        let directory = try TemporaryDirectory("write-misuse")
        let writer = try ZipWriter(path: directory.file("m.zip"))
        try writer.addFile("a", contents: [1])
        #expect(zipError { () throws(ZipError) in try writer.addFile("a", contents: [2]) }?.code == .invalidArgument)
        #expect(zipError { () throws(ZipError) in try writer.addFile("", contents: [2]) }?.code == .invalidArgument)
        #expect(zipError { () throws(ZipError) in try writer.addFile("b", contents: [2], method: .bzip2) }?.code == .unsupportedMethod)
        #expect(zipError { () throws(ZipError) in try writer.addFile("c", contents: [2], level: 11) }?.code == .invalidArgument)
        let longComment = String(repeating: "c", count: 65_536)
        #expect(zipError { () throws(ZipError) in try writer.finish(comment: longComment) }?.code == .invalidArgument)
        try writer.finish(sync: false)
        #expect(zipError { () throws(ZipError) in try writer.addFile("d", contents: [2]) }?.code == .invalidArgument)
        #expect(zipError { () throws(ZipError) in try writer.finish() }?.code == .invalidArgument)
        #expect(try ZipArchive(path: directory.file("m.zip")).entries.map(\.name) == ["a"])

        #expect(zipError { () throws(ZipError) in try ZipWriter(path: directory.file("n.zip"), options: .init(level: 10)) }?.code == .invalidArgument)
        for alignment in [-4, 3, 65_536] {
            #expect(zipError { () throws(ZipError) in
                try ZipWriter(path: directory.file("n.zip"), options: .init(storedAlignment: alignment))
            }?.code == .invalidArgument, "alignment \(alignment)")
        }
    }

    @Test func zip64LayoutAllowsForDeflateExpansion() {
        // Incompressible data just under 4 GiB deflates to just over it: the header must have Zip64 room.
        let almost = UInt64(FormatLimit.max32) - (1 << 20) - 1
        let deflated = LocalHeaderLayout(sizeHint: almost, method: .deflate, alignment: 0, headerOffset: 0, nameLength: 1)
        #expect(deflated.zip64)
        let stored = LocalHeaderLayout(sizeHint: almost, method: .stored, alignment: 0, headerOffset: 0, nameLength: 1)
        #expect(!stored.zip64)
        #expect(LocalHeaderLayout.largestOutput(.max, method: .deflate) == .max)
        #expect(!LocalHeaderLayout(sizeHint: 1 << 20, method: .deflate, alignment: 0, headerOffset: 0, nameLength: 1).zip64)
    }

    @Test func streamThatBreaksItsDeclaredSizeIsAnError() throws {
        let directory = try TemporaryDirectory("write-size")
        let writer = try ZipWriter(path: directory.file("s.zip"))
        let error = zipError { () throws(ZipError) in
            try writer.addFile("short", from: MemoryStream([1, 2, 3]), size: 10)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.entry == "short")
    }
}
