import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Errors carry what failed below them as a value (``ZipError/Cause``), not only as text: the system call
/// and its errno, or the zlib call and its status; the runtime's error keeps it when it wraps a zip error.
@Suite struct ErrorCauseTests {
    @Test func aFailedSystemCallIsTheCause() throws {
        let scratch = try TemporaryDirectory("cause-open")
        let error = #expect(throws: ZipError.self) { try ZipArchive(path: scratch.file("missing.zip")) }
        #expect(error?.code == .io)
        #expect(error?.cause == .system(call: "open", errno: ENOENT))
        #expect(error?.errno == ENOENT)
        #expect(error?.description == "\(scratch.file("missing.zip")): open failed: No such file or directory")
        let wrapped = error.map { AssetPackError($0) }
        #expect(wrapped?.code == .notFound)  // a missing file is not-found whichever layer opened it
        #expect(wrapped?.cause == .system(call: "open", errno: ENOENT))
        // The runtime's error says it in plain words; the call stays in the cause.
        #expect(wrapped?.description == "\(scratch.file("missing.zip")): no such file or folder")
    }

    @Test func damagedDeflateDataHasTheDecodersStatusAsItsCause() throws {
        var entry = try RawZip.deflated("data.bin", Array(repeating: 7, count: 1000))
        entry.data = [0xFF, 0xFF, 0xFF, 0xFF]  // a final block of the reserved type 3
        let archive = try ZipArchive(source: MemorySource(RawZip([entry]).bytes))
        let error = #expect(throws: ZipError.self) { try archive.open(archive.requireEntry(named: "data.bin")).readAll() }
        #expect(error?.code == .corruptData)
        // The decoder that ran says why: ISA-L where it is loaded, else zlib.
        let cause: ZipError.Cause = Inflater.Engine.fastest == .isal
            ? .isal(call: "isal_inflate", status: -1 /* ISAL_INVALID_BLOCK */) : .zlib(call: "inflate", status: -3 /* Z_DATA_ERROR */)
        #expect(error?.cause == cause)
        #expect(error?.message.hasPrefix("deflate data is damaged: invalid block") == true)
        #expect(error?.errno == nil)
    }

    @Test func theRuntimeMapsCausesToItsCodes() {
        let full = AssetPackError(ZipError(.io, "write failed: No space left on device", archive: "a.zip", errno: ENOSPC))
        #expect(full.code == .noSpace)
        #expect(full.errno == ENOSPC)
        let zlib = AssetPackError(ZipError(.zlib, "zlib deflateInit2 failed with status -4", cause: .zlib(call: "deflateInit2", status: -4)))
        #expect(zlib.code == .io)
        #expect(zlib.cause == .zlib(call: "deflateInit2", status: -4))
        let system = AssetPackError.system("pwrite", path: "out/a.bin", errno: EIO)
        #expect(system.description == "out/a.bin: input/output error")
        #expect(system.cause == .system(call: "pwrite", errno: EIO))
        var legacy = AssetPackError(.io, "read failed", path: "locked.bin", errno: EIO)
        #expect(legacy.errno == EIO)
        legacy.errno = EACCES
        #expect(legacy.cause == .system(call: nil, errno: EACCES))
    }
}
