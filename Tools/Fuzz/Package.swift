// swift-tools-version:6.0
// Fuzz targets for assetpack: a nested package, so its build never reaches the main package or its users.
// Build and run with ./run.sh (it passes -sanitize=fuzzer to every module; see README.md).
import PackageDescription

let package = Package(
    name: "assetpack-fuzz",
    dependencies: [
        .package(name: "assetpack", path: "../.."),
    ],
    targets: [
        // Declares libFuzzer's driver, which each target's main.swift calls (see README.md).
        .target(name: "CFuzzDriver"),
        // Random-access reader and forward-only reader on arbitrary bytes, with size and CRC invariants.
        .executableTarget(
            name: "FuzzZipReader",
            dependencies: ["CFuzzDriver", .product(name: "AssetPackZip", package: "assetpack")]
        ),
        // Raw deflate streams decoded by ISA-L and by zlib: the same bytes, the same end, the same refusals
        // (uses the zip layer's package-level Inflater: run.sh builds with -enable-testing).
        .executableTarget(
            name: "FuzzInflate",
            dependencies: ["CFuzzDriver", .product(name: "AssetPackZip", package: "assetpack")]
        ),
        // Arbitrary data compressed in pieces by libdeflate and joined into one stream, decoded by zlib.
        .executableTarget(
            name: "FuzzDeflate",
            dependencies: ["CFuzzDriver", .product(name: "AssetPackZip", package: "assetpack")]
        ),
        // AssetPath on arbitrary names, decoded lossily and through the zip layer's name decoding.
        .executableTarget(
            name: "FuzzEntryName",
            dependencies: [
                "CFuzzDriver",
                .product(name: "AssetPack", package: "assetpack"),
                .product(name: "AssetPackZip", package: "assetpack"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
