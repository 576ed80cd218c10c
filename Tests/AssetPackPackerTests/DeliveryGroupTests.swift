import AssetPack
import AssetPackZip
import Foundation
import Testing
import TestSupport
@testable import AssetPackPacker

/// A delivered bundle's pack members are fetched in groups (``DeliveryGroups``): one request for the
/// range of adjacent members, split among them and each checked; a damaged group is fetched again, and a
/// group that never checks out is an error that leaves none of its files. Delivered here from the bundle
/// folder by ``FolderDelivery``, which counts and can damage the requests.
@Suite struct DeliveryGroupTests {
    /// 5 folders of 60 small files and one plain file, in pack archives of at most 64 KiB.
    static func bundle(_ dir: TemporaryDirectory) throws -> (source: String, bundle: String, manifest: BundleManifest) {
        var random = SeededRandom(seed: 300)
        for number in 0..<300 { try dir.write("src/d\(number / 60)/f\(number).txt", random.text(200 + number * 7)) }
        try dir.write("src/plain.bin", random.bytes(100_000))
        var rules = PackingRules()
        rules.packSize = 64 << 10
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: dir.file("src"), output: dir.file("out"))
        return (dir.file("src"), dir.file("out"), try readManifest(dir.file("out")))
    }

    static func packCount(_ manifest: BundleManifest) -> Int {
        Set(manifest.entries.compactMap { $0.storage?.file }.filter { $0.hasPrefix("assetpack-meta/packs/") }).count
    }

    @Test func aFirstInstallAsksOneRangePerPackNotOneRequestPerFile() throws {
        let dir = try TemporaryDirectory("delivery-groups")
        let (source, bundle, manifest) = try Self.bundle(dir)
        let delivery = FolderDelivery(root: bundle)
        let result = try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery),
                                        destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            .installSynchronously()
        #expect(result.files == 301)
        #expect(try snapshot(dir.file("installed")) == snapshot(source))
        let packs = Self.packCount(manifest)
        #expect(packs > 5)
        #expect(delivery.requests.count == packs + 1, "one range per pack archive and the plain file")
        #expect(delivery.requests.filter { $0.file.hasPrefix("assetpack-meta/packs/") }.allSatisfy { $0.range != nil })
    }

    @Test func aDeliveryThatJoinsNothingIsAskedForEachFileAlone() throws {
        let dir = try TemporaryDirectory("delivery-groups-none")
        let (source, bundle, _) = try Self.bundle(dir)
        let delivery = FolderDelivery(root: bundle, coalescing: .none)
        try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery),
                           destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            .installSynchronously()
        #expect(try snapshot(dir.file("installed")) == snapshot(source))
        #expect(delivery.requests.count == 301, "one request per file")
    }

    @Test func aGroupDamagedOnTheWayIsFetchedAgain() throws {
        let dir = try TemporaryDirectory("delivery-groups-damaged")
        let (source, bundle, manifest) = try Self.bundle(dir)
        let delivery = FolderDelivery(root: bundle, damaging: 1)
        try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery),
                           destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            .installSynchronously()
        #expect(try snapshot(dir.file("installed")) == snapshot(source))
        #expect(delivery.requests.count == Self.packCount(manifest) + 2, "one group fetched twice")
    }

    @Test func aGroupThatNeverChecksOutIsAnErrorNamingItsArchiveAndLeavesNothing() throws {
        let dir = try TemporaryDirectory("delivery-groups-broken")
        let (_, bundle, _) = try Self.bundle(dir)
        let delivery = FolderDelivery(root: bundle, damaging: .max)
        let error = expectError {
            try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery),
                               destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
                .installSynchronously()
        }
        #expect(error?.code == .verification)
        #expect(error?.path?.hasPrefix(bundle + "/assetpack-meta/packs/") == true || error?.path == bundle + "/plain.bin",
                "\(String(describing: error))")
        #expect(!FileManager.default.fileExists(atPath: dir.file("installed")))
    }

    @Test func anUpgradeAsksOnlyTheChangedMembersRange() throws {
        let dir = try TemporaryDirectory("delivery-groups-upgrade")
        let (source, bundle, _) = try Self.bundle(dir)
        try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: FolderDelivery(root: bundle)),
                           destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            .installSynchronously()
        try dir.write("src/d2/f150.txt", text: "changed")
        var rules = PackingRules()
        rules.packSize = 64 << 10
        _ = try Packer(options: BuildOptions(rules: rules)).build(source: source, output: bundle)
        let upgraded = try readManifest(bundle)
        let delivery = FolderDelivery(root: bundle)
        let result = try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery, installedTree: dir.file("installed")),
                                        destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            .installSynchronously()
        #expect(result.filesLinked == 300)
        #expect(try snapshot(dir.file("installed")) == snapshot(source))
        let storage = try #require(upgraded.entries.first { $0.path == "d2/f150.txt" }?.storage)
        let offset = try #require(storage.dataOffset)
        #expect(delivery.requests == [DeliveryRequest(file: storage.file, range: offset..<offset + (storage.compressedSize ?? 0),
                                                      length: storage.compressedSize ?? 0)])
    }

    /// The dry run announces, in bytes and requests, what the install then asks its delivery for: the ranges of the
    /// packs (a first install), then the changed member's range alone (an upgrade).
    @Test func aDryRunAnnouncesTheRequestsTheInstallThenMakes() throws {
        let dir = try TemporaryDirectory("delivery-groups-dry-run")
        let (source, bundle, _) = try Self.bundle(dir)
        for change in [nil, "d2/f150.txt"] {
            if let change {
                try dir.write("src/" + change, text: "changed")
                var rules = PackingRules()
                rules.packSize = 64 << 10
                _ = try Packer(options: BuildOptions(rules: rules)).build(source: source, output: bundle)
            }
            let delivery = FolderDelivery(root: bundle)
            let installer = try AssetInstaller(source: DeliveredBundleSource(bundle: bundle, delivery: delivery,
                                                                             installedTree: dir.file("installed")),
                                               destination: dir.file("installed"), options: ExpansionOptions(durability: .none))
            let preview = try installer.dryRun()
            #expect(delivery.requests.isEmpty, "the dry run asks for nothing")
            try installer.installSynchronously()
            let expected = change == nil ? Self.packCount(try readManifest(bundle)) + 1 : 1
            #expect(preview.requestsToFetch == delivery.requests.count && delivery.requests.count == expected)
            #expect(preview.bytesToFetch == delivery.requests.reduce(0) { $0 + $1.length })
        }
    }
}

/// A ``BundleDelivery`` from a bundle folder on this machine, in chunks of 1,000 bytes (so a group's bytes
/// are split mid-member), recording every request; the first `damaging` deliveries of a pack archive get one
/// byte flipped. Like a real delivery it fetches again, at most twice, when the sink refuses the bytes.
final class FolderDelivery: BundleDelivery, @unchecked Sendable {
    let root: String
    private let lock = NSLock()
    private var damaging: Int
    private var recorded: [DeliveryRequest] = []

    var name: String { root }
    var concurrency: Int { 3 }
    let coalescing: DeliveryCoalescing

    init(root: String, damaging: Int = 0, coalescing: DeliveryCoalescing = DeliveryCoalescing(maximumGap: 64 << 10, maximumSpan: 2 << 20)) {
        self.root = root
        self.damaging = damaging
        self.coalescing = coalescing
    }

    /// Every request so far, in order.
    var requests: [DeliveryRequest] { lock.withLock { recorded } }

    func deliver(_ request: DeliveryRequest, into sink: any DeliverySink) throws(AssetPackError) {
        var failure = AssetPackError(.network, "no attempt", path: root)
        for attempt in 0..<3 {
            if attempt > 0 { try sink.restart() }
            var bytes = try read(request)
            let damage = lock.withLock { () -> Bool in
                recorded.append(request)
                guard damaging > 0, request.file.hasPrefix("assetpack-meta/packs/") else { return false }
                damaging -= 1
                return true
            }
            if damage, !bytes.isEmpty { bytes[bytes.count / 2] ^= 0x55 }
            for start in stride(from: 0, to: bytes.count, by: 1000) {
                let chunk = Array(bytes[start..<min(start + 1000, bytes.count)])
                let written = chunk.withUnsafeBytes { (raw) in Result { () throws(AssetPackError) in try sink.write(raw) } }
                try written.get()
            }
            do {
                try sink.finish()
                return
            } catch where error.code == .verification {
                failure = error
            }
        }
        throw failure
    }

    private func read(_ request: DeliveryRequest) throws(AssetPackError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: root + "/" + request.file) else {
            throw AssetPackError(.notFound, "no such file", path: root + "/" + request.file)
        }
        let bytes = [UInt8](data)
        guard let range = request.range else { return bytes }
        return Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)])
    }
}

extension DeliveredBundleSource {
    /// The bundle folder `bundle` as delivered by `delivery`: its manifest file read from the folder.
    init(bundle: String, delivery: any BundleDelivery, installedTree: String? = nil) throws {
        try self.init(manifest: FileSource(path: bundle + "/" + BundleManifest.path), identity: readManifest(bundle).identity,
                      delivery: delivery, installedTree: installedTree)
    }
}
