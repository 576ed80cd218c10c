import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport

/// Archives built to exhaust the machine: high compression ratios, sizes that lie, entries sharing
/// bytes, too many entries, archives inside archives. Each is refused within the default limits (or a
/// caller's tighter ones) with `.limitExceeded` or `.archive`, quickly and without writing what it
/// promises; a caller who raises a limit on purpose gets the data.
@Suite struct BombTests {
    /// 8 MiB of zeros deflates to about 8 KiB: about 1,030:1, near deflate's ceiling of 1,032:1.
    static let zeros = [UInt8](repeating: 0, count: 8 << 20)

    @Test(arguments: Placement.allCases)
    func aGenuineHighRatioEntryIsAcceptedByDefaultAndRefusedByACallerLimit(_ placement: Placement) throws {
        // No deflate stream passes the default limit (deflate's own ceiling), so a file of one repeated byte
        // is never taken for a bomb; a caller who distrusts such entries lowers the limit.
        let stage = try HostileStage("bomb-ratio")
        let bomb = try RawZip.deflated("zeros.bin", Self.zeros)
        #expect(Double(Self.zeros.count) / Double(bomb.data.count) > 1_000)
        #expect(Double(Self.zeros.count) / Double(bomb.data.count) <= ZipLimits.deflateMaxRatio)
        var limits = ZipLimits.default
        limits.maxCompressionRatio = 1_000
        let error = try stage.refuse(rawZip([RawZip.file("small.txt", [1]), bomb]), placement,
                                     options: ExpansionOptions(jobs: 1, limits: limits))
        expectError(error, .limitExceeded, mentions: [stage.archivePath(placement).shown, "\"zeros.bin\"", "1000:1"])
        stage.expectIntact(absent: ["zeros.bin"])
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")), "refused while planning")

        let tree = try stage.accept(placement)
        #expect(tree?.files["zeros.bin"]?.count == Self.zeros.count)
        #expect(tree?.files["zeros.bin"]?.allSatisfy { $0 == 0 } == true)
    }

    @Test(arguments: [2, 3, 5], Placement.allCases)
    func aFileOfOneRepeatedByteOverOneMiBIsNotABomb(_ mebibytes: Int, _ placement: Placement) throws {
        // A preallocated database or a blank image: deflated at level 9 (as `zip -9`), about 1,023–1,027:1.
        let stage = try HostileStage("bomb-not")
        let blank = [UInt8](repeating: 0, count: mebibytes << 20)
        let path = stage.archivePath(placement).path
        try makeParent(path)
        try writeBytes(rawZip([try RawZip.deflated("blank.bin", blank)]), to: path)
        #expect(try stage.accept(placement)?.files["blank.bin"] == blank)
    }

    @Test(arguments: Placement.allCases)
    func aRatioThatOnlyTheDataRevealsIsStoppedWhileReading(_ placement: Placement) throws {
        // The headers claim 2 MiB from 1 MiB (harmless); the data is 2 KiB of deflate that inflates to 2 MiB
        // (1,023:1). Under a caller's limit of 100:1 the reader stops it; the default, which no deflate stream
        // can pass, lets it give the 2 MiB it declares (the reader never gives more), and no more.
        let stage = try HostileStage("bomb-ratio-lie")
        let real = [UInt8](repeating: 0, count: 2 << 20)
        var bomb = try RawZip.deflated("zeros.bin", real)
        let padding = (1 << 20) - bomb.data.count
        bomb.data += [UInt8](repeating: 0, count: padding)  // junk after the deflate stream, never read
        var limits = ZipLimits.default
        limits.maxCompressionRatio = 100
        let error = try stage.refuse(rawZip([bomb]), placement, options: ExpansionOptions(jobs: 1, limits: limits))
        expectError(error, .limitExceeded, mentions: [stage.archivePath(placement).shown, "\"zeros.bin\"", "ratio"])
        stage.expectIntact(absent: ["zeros.bin"])
        #expect(try stage.accept(placement)?.files["zeros.bin"] == real)
    }

    @Test(arguments: Placement.allCases)
    func aDeclaredSizeThatUnderstatesTheDataIsCutAtTheDeclaredSize(_ placement: Placement) throws {
        // 8 MiB of zeros declared as 1,000 bytes: the reader never hands out more than declared.
        let stage = try HostileStage("bomb-understated")
        var bomb = try RawZip.deflated("zeros.bin", Self.zeros)
        bomb.uncompressedSize = 1_000
        bomb.crc32 = CRC32.checksum(Array(Self.zeros.prefix(1_000)))
        let started = ContinuousClock.now
        let error = try stage.refuse(rawZip([bomb]), placement)
        #expect(ContinuousClock.now - started < .seconds(5))
        expectError(error, .verification, mentions: [stage.archivePath(placement).shown, "\"zeros.bin\"",
                                                     "size mismatch: expected 1000 bytes (declared in the central directory), data has more"])
        #expect(error?.zipError?.code == .sizeMismatch)
        stage.expectIntact(absent: ["zeros.bin"])
    }

    @Test(arguments: Placement.allCases)
    func aDeclaredSizeOfTerabytesIsRefusedBeforeAnythingIsWritten(_ placement: Placement) throws {
        // 3.9 GiB declared from 16 bytes: refused by the ratio limit; with that off, by the total-size limits.
        let stage = try HostileStage("bomb-overstated")
        var bomb = try RawZip.deflated("huge.bin", [1, 2, 3])
        bomb.uncompressedSize = 0xF000_0000
        let bytes = rawZip([bomb])
        expectError(try stage.refuse(bytes, placement), .limitExceeded, mentions: ["\"huge.bin\"", "ratio"])
        var noRatio = ZipLimits.default
        noRatio.maxCompressionRatio = nil
        noRatio.maxTotalUncompressedSize = 1 << 30
        expectError(try stage.refuse(bytes, placement, options: ExpansionOptions(limits: noRatio)), .limitExceeded,
                    mentions: ["huge.bin", "1073741824 bytes"])
        stage.expectIntact()
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")))
    }

    @Test(arguments: Placement.allCases)
    func entriesSharingBytesAreRefused(_ placement: Placement) throws {
        // The "better zip bomb": many central records pointing at one local header.
        let stage = try HostileStage("bomb-overlap")
        var entries = [try RawZip.deflated("kernel.bin", Self.zeros)]
        for index in 1...3 {
            var alias = entries[0]
            alias.name = Array("alias\(index).bin".utf8)
            alias.localName = entries[0].name
            alias.data = []
            alias.compressedSize = UInt32(entries[0].data.count)
            alias.localHeaderOffset = 0
            entries.append(alias)
        }
        var limits = ZipLimits.default
        limits.maxCompressionRatio = nil  // so that only the overlap can stop it
        let error = try stage.refuse(rawZip(entries), placement, options: ExpansionOptions(limits: limits))
        expectError(error, .archive, mentions: [stage.archivePath(placement).shown, "kernel.bin"])
        #expect(error?.zipError?.code == .overlap)
        stage.expectIntact()
    }

    @Test(arguments: Placement.allCases)
    func moreEntriesThanTheLimitAreRefused(_ placement: Placement) throws {
        let stage = try HostileStage("bomb-entries")
        let entries = (0..<101).map { RawZip.file("f\($0).txt", [UInt8($0)]) }
        var limits = ZipLimits.default
        limits.maxEntries = 100
        let error = try stage.refuse(rawZip(entries), placement, options: ExpansionOptions(limits: limits))
        expectError(error, .limitExceeded, mentions: [stage.archivePath(placement).shown, "limit of 100"])
        stage.expectIntact()
        #expect(ZipLimits.default.maxEntries == 1_000_000)
    }

    @Test func nestedArchivesAreUnzippedOneLevelNeverRecursively() throws {
        let stage = try HostileStage("bomb-nested")
        let deepest = rawZip([RawZip.file("x.txt", Array("deepest".utf8))])
        let deeper = rawZip([RawZip.file("deeper.zip", deepest)])
        let inner = rawZip([RawZip.file("inner.zip", deeper)])
        // Inside a tree: outer.zip is unzipped; the inner.zip it holds stays a file.
        try RawZip([RawZip.file("inner.zip", inner)]).write(to: stage.scratch.file("tree/outer.zip"))
        #expect(try stage.accept(.inTree)?.files == ["inner.zip": inner])
        // As the source: the archive is the tree, so its inner.zip is the one level unzipped.
        try RawZip([RawZip.file("inner.zip", inner)]).write(to: stage.scratch.file("hostile.zip"))
        #expect(try stage.accept(.asSource)?.files == ["inner.zip": deeper])
    }

    @Test func theTotalOutputOfAllArchivesIsBoundedByTheCallersLimit() throws {
        let stage = try HostileStage("bomb-total")
        var random = SeededRandom(seed: 3)
        let a = random.bytes(600_000), b = random.bytes(600_000)
        try RawZip([RawZip.file("a/part.bin", a)]).write(to: stage.scratch.file("tree/one.zip"))
        try RawZip([RawZip.file("b/part.bin", b)]).write(to: stage.scratch.file("tree/two.zip"))
        try stage.scratch.write("tree/plain.bin", random.bytes(100_000))
        let error = stage.refuse(.inTree, options: ExpansionOptions(maxTotalBytes: 1_000_000))
        expectError(error, .limitExceeded, mentions: ["two.zip", "b/part.bin", "1000000 bytes", "maxTotalBytes"])
        stage.expectIntact()
        #expect(!FileManager.default.fileExists(atPath: stage.scratch.file("out/.assets.assetpack-staging")), "refused while planning")
        #expect(ExpansionOptions().maxTotalBytes == 64 << 30)

        let tree = try stage.accept(.inTree, options: ExpansionOptions(maxTotalBytes: 1_300_000))
        #expect(tree?.files.count == 3)
    }

    @Test func theTotalOfABundleIsBoundedToo() throws {
        let stage = try HostileStage("bomb-total-bundle")
        try ExpansionFixtures.bundle(.standard, packed: ["big.bin": .deflate], at: stage.scratch.file("tree"),
                                     scratch: try TemporaryDirectory("bomb-total-bundle-work"))
        let error = stage.refuse(.inTree, options: ExpansionOptions(maxTotalBytes: 100_000))
        expectError(error, .limitExceeded, mentions: ["maxTotalBytes"])
        stage.expectIntact()
    }
}
