import Foundation
import Testing
import TestSupport
@testable import AssetPackZip

/// An archive made at test time by another tool from ``SourceTree``.
struct ToolArchive: Sendable, CustomTestStringConvertible {
    /// What the case is called in test output.
    let label: String
    /// The executable that must exist, and the Debian package that provides it.
    let tool: String
    let package: String
    /// A `/bin/sh` script run in the source folder that writes the archive to `$OUT` (`$PY` is the Python helper).
    let script: String
    var hasDirectoryEntries = true
    var usesDataDescriptors = false
    var usesZip64 = false

    var testDescription: String { label }

    /// The cases made with `tool`.
    static func made(by tool: ExternalTool) -> [ToolArchive] { all.filter { $0.tool == tool.command } }

    static let all: [ToolArchive] = [
        ToolArchive(label: "zip -0", tool: "zip", package: "zip", script: #"zip -q -r -0 "$OUT" ."#),
        ToolArchive(label: "zip -9", tool: "zip", package: "zip", script: #"zip -q -r -9 "$OUT" ."#),
        ToolArchive(label: "zip -D (no directory entries)", tool: "zip", package: "zip",
                    script: #"zip -q -r -D "$OUT" ."#, hasDirectoryEntries: false),
        ToolArchive(label: "zip streamed to a pipe", tool: "zip", package: "zip",
                    script: #"zip -q -r - . | cat > "$OUT""#, usesDataDescriptors: true),
        ToolArchive(label: "zip -fz", tool: "zip", package: "zip", script: #"zip -q -r -fz "$OUT" ."#, usesZip64: true),
        ToolArchive(label: "zip -fz streamed to a pipe", tool: "zip", package: "zip",
                    script: #"zip -q -r -fz - . | cat > "$OUT""#, usesDataDescriptors: true, usesZip64: true),
        ToolArchive(label: "python stored", tool: "python3", package: "python3", script: #"python3 "$PY" stored "$OUT""#),
        ToolArchive(label: "python deflated", tool: "python3", package: "python3", script: #"python3 "$PY" deflated "$OUT""#),
        ToolArchive(label: "python force_zip64", tool: "python3", package: "python3",
                    script: #"python3 "$PY" deflated-zip64 "$OUT""#, usesZip64: true),
        ToolArchive(label: "python deflated to a pipe", tool: "python3", package: "python3",
                    script: #"python3 "$PY" deflated - | cat > "$OUT""#, usesDataDescriptors: true),
        ToolArchive(label: "python stored force_zip64 to a pipe", tool: "python3", package: "python3",
                    script: #"python3 "$PY" stored-zip64 - | cat > "$OUT""#, usesDataDescriptors: true, usesZip64: true),
        ToolArchive(label: "jar cf", tool: "jar", package: "default-jdk-headless", script: #"jar cf "$OUT" ."#,
                    usesDataDescriptors: true),
        ToolArchive(label: "jar c0f (stored)", tool: "jar", package: "default-jdk-headless", script: #"jar c0f "$OUT" ."#),
        ToolArchive(label: "7z a -tzip", tool: "7z", package: "p7zip-full", script: #"7z a -tzip -bso0 -bsp0 "$OUT" ."#),
        ToolArchive(label: "7z a -tzip -mx=0", tool: "7z", package: "p7zip-full",
                    script: #"7z a -tzip -mx=0 -bso0 -bsp0 "$OUT" ."#),
        ToolArchive(label: "7z a -tzip -mx=9", tool: "7z", package: "p7zip-full",
                    script: #"7z a -tzip -mx=9 -bso0 -bsp0 "$OUT" ."#),
        ToolArchive(label: "bsdtar --format zip", tool: "bsdtar", package: "libarchive-tools",
                    script: #"bsdtar --format zip -cf "$OUT" *"#, usesDataDescriptors: true),
        ToolArchive(label: "bsdtar --format zip, stored", tool: "bsdtar", package: "libarchive-tools",
                    script: #"bsdtar --format zip --options zip:compression=store -cf "$OUT" *"#),
    ]
}

/// Writes the Python helper that archives the current folder: `mkzip.py MODE OUT` where MODE names the
/// method (`stored`/`deflated`, `-zip64` for force_zip64) and OUT is a path or `-` (a pipe: data descriptors).
func writePythonArchiver(in directory: TemporaryDirectory) throws -> String {
    try directory.write("mkzip.py", text: """
        import os, sys, zipfile
        mode, out = sys.argv[1], sys.argv[2]
        method = zipfile.ZIP_STORED if mode.startswith('stored') else zipfile.ZIP_DEFLATED
        target = sys.stdout.buffer if out == '-' else out
        with zipfile.ZipFile(target, 'w', compression=method) as zf:
            for root, dirs, files in os.walk('.'):
                dirs.sort()
                rel = os.path.relpath(root, '.')
                if rel != '.':
                    zf.mkdir(rel)
                for name in sorted(files):
                    path = name if rel == '.' else os.path.join(rel, name)
                    info = zipfile.ZipInfo.from_file(path, path)
                    info.compress_type = method
                    with open(path, 'rb') as src, zf.open(info, 'w', force_zip64=mode.endswith('zip64')) as dst:
                        dst.write(src.read())
        """)
}

/// The central and local extra fields of `entry` as stored, for checks on fields ``ZipEntry`` does not expose.
func rawExtraFields(of entry: ZipEntry, in bytes: [UInt8]) -> [[UInt8]] {
    var central = ByteCursor(bytes, position: Int(entry.centralHeaderOffset))
    var local = ByteCursor(bytes, position: Int(entry.localHeaderOffset))
    guard let header = CentralDirectoryHeader.parse(&central),
          let (_, nameLength, extraLength) = LocalFileHeader.parseFixed(&local),
          local.skip(nameLength), let localExtra = local.readBytes(extraLength)
    else { return [] }
    return [header.extra, localExtra]
}

/// Reading archives made by other tools.
@Suite struct InteropReadTests {
    // One test per tool, so a missing tool shows as a skipped test (see `ExternalTool`).
    @Test(ExternalTool.zip.needed, arguments: ToolArchive.made(by: .zip))
    func readsInfoZipArchive(_ tool: ToolArchive) throws { try readsToolArchive(tool) }

    @Test(ExternalTool.python3.needed, arguments: ToolArchive.made(by: .python3))
    func readsPythonArchive(_ tool: ToolArchive) throws { try readsToolArchive(tool) }

    @Test(ExternalTool.jar.needed, arguments: ToolArchive.made(by: .jar))
    func readsJarArchive(_ tool: ToolArchive) throws { try readsToolArchive(tool) }

    @Test(ExternalTool.sevenZip.needed, arguments: ToolArchive.made(by: .sevenZip))
    func readsSevenZipArchive(_ tool: ToolArchive) throws { try readsToolArchive(tool) }

    @Test(ExternalTool.bsdtar.needed, arguments: ToolArchive.made(by: .bsdtar))
    func readsBsdtarArchive(_ tool: ToolArchive) throws { try readsToolArchive(tool) }

    @Test func everyToolArchiveHasATest() {
        let covered = [ExternalTool.zip, .python3, .jar, .sevenZip, .bsdtar].flatMap { ToolArchive.made(by: $0) }
        #expect(covered.count == ToolArchive.all.count)
    }

    private func readsToolArchive(_ tool: ToolArchive) throws {
        try ExternalTool(tool.tool, package: tool.package).require()
        let directory = try TemporaryDirectory("interop-read")
        let source = try SourceTree.write(in: directory)
        let output = directory.file("out.zip")
        let python = try writePythonArchiver(in: directory)
        try shell(tool.script, in: source, environment: ["OUT": output, "PY": python])
        let archive = try ZipArchive(path: output)
        try expectSourceTree(in: archive)
        #expect(archive.isDirectory("dir/sub"))
        #expect(archive.contentsOfDirectory("dir") == ["sub", "tiny.bin"])
        #expect(archive.contentsOfDirectory("dir/sub/") == ["nested.txt"])
        #expect(archive.entry(named: "dir/")?.kind == (tool.hasDirectoryEntries ? .directory : nil))
        if tool.usesDataDescriptors {
            #expect(archive.entries.contains { $0.hasDataDescriptor }, "expected data descriptors")
        }
        if tool.usesZip64 {
            let bytes = try fileBytes(output)
            let zip64 = archive.entries.contains { entry in
                rawExtraFields(of: entry, in: bytes).contains { ExtraField.find(ExtraFieldID.zip64, in: $0) != nil }
            }
            #expect(zip64, "expected Zip64 extra fields")
        }
    }

    @Test func readsArchiveBehindSelfExtractorStub() throws {
        try ExternalTool.zip.require()
        let directory = try TemporaryDirectory("sfx")
        let source = try SourceTree.write(in: directory)
        var random = SeededRandom(seed: 99)
        try directory.write("stub.bin", random.bytes(5_001))
        try shell(#"zip -q -r ../a.zip . && cat ../stub.bin ../a.zip > ../sfx.zip"#, in: source)
        let unadjusted = try ZipArchive(path: directory.file("sfx.zip"))
        #expect(unadjusted.prefixLength == 5_001)
        try expectSourceTree(in: unadjusted)

        try shell(#"zip -q -A ../sfx.zip"#, in: source)
        let adjusted = try ZipArchive(path: directory.file("sfx.zip"))
        #expect(adjusted.prefixLength == 0)
        #expect(adjusted.entries.first.map { $0.localHeaderOffset >= 5_001 } == true)
        try expectSourceTree(in: adjusted)
    }

    @Test func readsArchiveComment() throws {
        try ExternalTool.zip.require()
        let directory = try TemporaryDirectory("comment")
        let source = try SourceTree.write(in: directory)
        try shell(#"zip -q -r ../c.zip . && printf 'built by the test\nsecond line' | zip -q -z ../c.zip"#, in: source)
        let archive = try ZipArchive(path: directory.file("c.zip"))
        // zip -z stores the comment's lines with CR LF endings.
        #expect(archive.comment == Array("built by the test\r\nsecond line".utf8))
        try expectSourceTree(in: archive)
    }

    @Test func readsOuterArchiveWhenCommentHoldsAnotherArchive() throws {
        try ExternalTool.python3.require()
        let directory = try TemporaryDirectory("nested-comment")
        try directory.write("mk.py", text: """
            import io, zipfile
            inner = io.BytesIO()
            with zipfile.ZipFile(inner, 'w') as zf:
                zf.writestr('inner.txt', b'inner archive')
            with zipfile.ZipFile('outer.zip', 'w', zipfile.ZIP_DEFLATED) as zf:
                zf.writestr('outer.txt', b'outer archive ' * 50)
                zf.comment = inner.getvalue()
            """)
        try shell("python3 mk.py", in: directory.path)
        let archive = try ZipArchive(path: directory.file("outer.zip"))
        #expect(archive.entries.map(\.name) == ["outer.txt"])
        #expect(try archive.contents(of: archive.requireEntry(named: "outer.txt")) == Array(String(repeating: "outer archive ", count: 50).utf8))
        let inner = try ZipArchive(source: MemorySource(archive.comment))
        #expect(inner.entries.map(\.name) == ["inner.txt"])
    }

    @Test func synthesizesDirectoriesForArchivesWithoutDirectoryEntries() throws {
        // APKs and most jars list only files; directories exist only as name prefixes.
        let directory = try TemporaryDirectory("apk")
        let writer = try ZipWriter(path: directory.file("app.apk"), options: .deterministic())
        for name in ["AndroidManifest.xml", "classes.dex", "res/layout/main.xml", "res/drawable-hdpi/icon.png",
                     "assets/levels/1.json", "assets/levels/2.json", "lib/arm64-v8a/libgame.so"] {
            try writer.addFile(name, contents: Array(name.utf8))
        }
        try writer.finish(sync: false)
        let archive = try ZipArchive(path: directory.file("app.apk"))
        #expect(archive.entries.allSatisfy { $0.kind == .file })
        #expect(archive.contentsOfDirectory("") == ["AndroidManifest.xml", "assets", "classes.dex", "lib", "res"])
        #expect(archive.contentsOfDirectory("res") == ["drawable-hdpi", "layout"])
        #expect(archive.contentsOfDirectory("assets/levels/") == ["1.json", "2.json"])
        #expect(archive.isDirectory("lib/arm64-v8a"))
        #expect(!archive.isDirectory("classes.dex"))
        #expect(!archive.isDirectory("missing"))
        #expect(archive.contentsOfDirectory("assets/levels/1.json") == nil)
    }

    @Test func readsSymlinksAndExecutableModesFromZipY() throws {
        try ExternalTool.zip.require()
        let directory = try TemporaryDirectory("symlinks")
        let source = try SourceTree.write(in: directory)
        try shell(#"""
            printf '#!/bin/sh\necho hi\n' > run.sh && chmod 755 run.sh && chmod 600 text.txt \
              && ln -s text.txt link && ln -s dir/sub dirlink && zip -q -r -y ../s.zip .
            """#, in: source)
        let archive = try ZipArchive(path: directory.file("s.zip"))
        let link = try archive.requireEntry(named: "link")
        #expect(link.kind == .symlink)
        #expect(try archive.contents(of: link) == Array("text.txt".utf8))
        #expect(try archive.requireEntry(named: "dirlink").kind == .symlink)
        let script = try archive.requireEntry(named: "run.sh")
        #expect(script.kind == .file)
        #expect(script.isExecutable)
        #expect(script.permissions == 0o755)
        let text = try archive.requireEntry(named: "text.txt")
        #expect(!text.isExecutable)
        #expect(text.permissions == 0o600)
        #expect(try archive.requireEntry(named: "dir/").kind == .directory)
        #expect(try archive.requireEntry(named: "dir/").unixMode.map { $0 & 0o170000 } == 0o040000)
    }
}
