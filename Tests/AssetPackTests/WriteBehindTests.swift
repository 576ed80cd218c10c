@testable import AssetPack
import AssetPackSystem
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// A large file is decoded on the installing thread and written behind by a helper thread (``WriteBehind``):
/// its bytes land whole and in place, a failed write stops it with the write's own error, damage found while
/// decoding leaves no file, and the next run without the fault installs it.
@Suite struct WriteBehindTests {
    /// Text over 20 MiB: a long deflate stream, written through many buffers.
    static let large: [UInt8] = {
        var random = SeededRandom(seed: 0x0B1D)
        return random.text(20 << 20 + 12_345)
    }()

    /// A zip at `work/NAME.zip` holding the large file deflated and a small one stored.
    static func zip(_ name: String, in work: TemporaryDirectory, large bytes: [UInt8] = large) throws -> String {
        let path = work.file("\(name).zip")
        try ExpansionFixtures.zip(at: path, [("big.txt", bytes, .deflate), ("small.txt", Array("small\n".utf8), .stored)])
        return path
    }

    static func install(_ zip: String, into destination: String, jobs: Int = 1) throws -> ExpansionResult {
        let source = ZipAssetSource(archive: try ZipArchive(path: zip), root: "")
        var options = ExpansionOptions(jobs: jobs)
        options.testSeam.freeSpace = 1 << 40
        return try AssetInstaller(source: source, destination: destination, options: options).installSynchronously()
    }

    @Test(arguments: [1, 2])
    func aLargeEntryLandsWholeWhateverTheJobs(jobs: Int) throws {
        let work = try TemporaryDirectory("write-behind")
        _ = try Self.install(Self.zip("v1", in: work), into: work.file("assets"), jobs: jobs)
        #expect(FileManager.default.contents(atPath: work.file("assets/big.txt")) == Data(Self.large))
        #expect(FileManager.default.contents(atPath: work.file("assets/small.txt")) == Data("small\n".utf8))
    }

    @Test func aFullDiskWhileWritingBehindIsNoSpaceNamingTheFileAndLeavesNothing() throws {
        let work = try TemporaryDirectory("write-behind-full")
        let zip = try Self.zip("v1", in: work)
        let fault = FaultInjection.Fault("pwrite", fails: .noSpace, under: work.file(".assets.assetpack-staging"), endingWith: "big.txt")
        FaultInjection.install(fault)
        let error = #expect(throws: AssetPackError.self) { try Self.install(zip, into: work.file("assets")) }
        FaultInjection.remove(fault)
        expectError(error, .noSpace, mentions: ["big.txt", "no space left on the device"])
        #expect(error?.cause == .system(call: "pwrite", errno: ENOSPC))
        #expect(!FileManager.default.fileExists(atPath: work.file("assets")))
        #expect(!HostileStage.allNames(work.file(".assets.assetpack-staging")).contains { $0.hasSuffix("big.txt") })
        _ = try Self.install(zip, into: work.file("assets"))
        #expect(FileManager.default.contents(atPath: work.file("assets/big.txt")) == Data(Self.large))
    }

    @Test func aDamagedLargeEntryFailsItsCheckAndLeavesNoFile() throws {
        let work = try TemporaryDirectory("write-behind-damaged")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Self.zip("v1", in: work))))
        // A byte late in the deflate data: the damage shows only after many buffers were written.
        bytes[bytes.count * 3 / 4] ^= 0x55
        let damaged = work.file("damaged.zip")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let error = #expect(throws: AssetPackError.self) { try Self.install(damaged, into: work.file("assets")) }
        #expect(error?.code == .archive || error?.code == .verification, "\(String(describing: error))")
        #expect(error?.description.contains("big.txt") == true)
        #expect(!FileManager.default.fileExists(atPath: work.file("assets")))
        #expect(!HostileStage.allNames(work.file(".assets.assetpack-staging")).contains { $0.hasSuffix("big.txt") })
    }

    @Test func bytesLandAtTheirOffsetsWhenTheDecoderOutrunsTheWriter() throws {
        let work = try TemporaryDirectory("write-behind-direct")
        let file = try Descriptor.directory(work.path).createFile("out.bin", readable: true, mode: 0o644)
        var random = SeededRandom(seed: 5)
        let chunks = (0..<40).map { index in random.bytes(index % 7 == 0 ? 1 : WriteBehind.bufferSize - index) }
        var next = 0
        let total = LockedCounter()
        try WriteBehind.write(into: file, written: { count, _ in total.add(count) }) { (buffer) throws(AssetPackError) -> Int in
            guard next < chunks.count else { return 0 }
            let chunk = chunks[next]
            next += 1
            chunk.withUnsafeBytes { buffer.copyMemory(from: $0) }
            return chunk.count
        }
        #expect(FileManager.default.contents(atPath: work.file("out.bin")) == Data(chunks.flatMap { $0 }))
        #expect(total.value == chunks.reduce(0) { $0 + $1.count })
    }
}

/// A count several threads add to.
private final class LockedCounter: @unchecked Sendable {
    private let monitor = Monitor()
    private var count = 0
    func add(_ amount: Int) { monitor.withLock { count += amount } }
    var value: Int { monitor.withLock { count } }
}
