// swift-tools-version:5.9
// The ZIPFoundation peer for Tools/Benchmarks: a tiny command over FileManager.zipItem/unzipItem.
// A nested package on purpose: it depends on ZIPFoundation only, never on assetpack, so the benchmark's
// dependency never reaches assetpack's users.
import PackageDescription

let package = Package(
    name: "ZIPFoundationPeer",
    dependencies: [
        .package(url: "https://github.com/weichsel/ZIPFoundation", exact: "0.9.20"),
    ],
    targets: [
        .executableTarget(
            name: "zipfoundation-peer",
            dependencies: [.product(name: "ZIPFoundation", package: "ZIPFoundation")]
        ),
    ]
)
