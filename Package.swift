// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "assetpack",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "AssetPackZip", targets: ["AssetPackZip"]),
        .library(name: "AssetPack", targets: ["AssetPack"]),
        .library(name: "AssetPackPacker", targets: ["AssetPackPacker"]),
        .library(name: "AssetPackRemote", targets: ["AssetPackRemote"]),
        .library(name: "AssetPackAndroid", targets: ["AssetPackAndroid"]),
        .executable(name: "assetpack", targets: ["AssetPackCLI"]),
        // The same executable under its target's name, for the plugins below: SwiftPM 6.3 looks a plugin's
        // tool up as a product named after the target (swiftlang/swift-package-manager#8831).
        .executable(name: "AssetPackCLI", targets: ["AssetPackCLI"]),
        .plugin(name: "AssetPackBuildPlugin", targets: ["AssetPackBuildPlugin"]),
        .plugin(name: "PackAssetsCommand", targets: ["PackAssetsCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // The system zlib.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // SHA-256 blocks in the CPU's own instructions (x86 SHA extensions), found at run time; AssetPack's
        // portable SHA256 is the fallback and the reference it is tested against.
        .target(name: "CSHA256"),
        // Intel's ISA-L inflater and CRC-32, loaded with dlopen where installed (compiled where its header is:
        // Debian's libisal-dev); without it every call reports "unavailable" and zlib decodes.
        .target(name: "CIsal", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux, .android]))]),
        // libdeflate's compressor (twice zlib's speed, the same sizes), loaded with dlopen where installed
        // (Debian's libdeflate0); without it every call reports "unavailable" and zlib compresses.
        .target(name: "CLibdeflate", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux, .android]))]),
        // The platform layer: every system call of the package, as thin shims (not a product; `package` API).
        .target(name: "AssetPackSystem"),
        // The zip format: records, reader, writer, compression. No policy.
        .target(name: "AssetPackZip", dependencies: ["CZlib", "CIsal", "CLibdeflate", "AssetPackSystem"]),
        // Runtime: asset sources, walker, expander, first-launch install.
        .target(name: "AssetPack", dependencies: ["AssetPackZip", "AssetPackSystem", "CSHA256"]),
        // Build time: packing rules, packer, manifest writer.
        .target(
            name: "AssetPackPacker",
            dependencies: ["AssetPack", "AssetPackZip", "AssetPackSystem", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Delivery over HTTP: transport, verified and resumable fetcher, Ed25519 trust for manifests.
        .target(
            name: "AssetPackRemote",
            dependencies: ["AssetPack", "AssetPackZip", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The `assetpack` command: a thin shell over the libraries.
        .executableTarget(
            name: "AssetPackCLI",
            dependencies: [
                "AssetPack", "AssetPackPacker", "AssetPackZip", "AssetPackSystem", "AssetPackRemote",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `swift build`: packs a target's Assets folder into its resource Assets.zip (README: SwiftPM plugin).
        .plugin(name: "AssetPackBuildPlugin", capability: .buildTool(), dependencies: ["AssetPackCLI"]),
        // `swift package pack-assets`: a one-off `assetpack build` into the package folder.
        .plugin(
            name: "PackAssetsCommand",
            capability: .command(
                intent: .custom(verb: "pack-assets", description: "Pack asset folders into bundles with assetpack build"),
                permissions: [.writeToPackageDirectory(reason: "writes the packed bundle (NAME.bundle or NAME.zip) into the package folder")]
            ),
            dependencies: ["AssetPackCLI"]
        ),
        // The NDK's asset API: libandroid on Android; on Linux a table filled at run time from the host shim
        // (Tools/AndroidHostShim), so nothing here needs the Android packages to build.
        .target(
            name: "CAndroidAssets",
            linkerSettings: [
                .linkedLibrary("android", .when(platforms: [.android])),
                .linkedLibrary("dl", .when(platforms: [.linux])),
            ]
        ),
        // An AssetSource over Android's AAssetManager: one Swift source for Android and for the host build.
        .target(name: "AssetPackAndroid", dependencies: ["AssetPack", "AssetPackZip", "CAndroidAssets"]),
        .target(name: "TestSupport", dependencies: ["AssetPack", "AssetPackPacker", "AssetPackZip"], path: "Tests/TestSupport"),
        .testTarget(name: "AssetPackZipTests", dependencies: ["AssetPackZip", "TestSupport"]),
        .testTarget(name: "AssetPackTests", dependencies: ["AssetPack", "AssetPackZip", "AssetPackSystem", "TestSupport"]),
        .testTarget(name: "AssetPackPackerTests", dependencies: ["AssetPackPacker", "AssetPack", "AssetPackZip", "TestSupport"]),
        .testTarget(name: "AssetPackCLITests", dependencies: ["AssetPack", "TestSupport"]),
        .testTarget(name: "AssetPackRemoteTests", dependencies: ["AssetPackRemote", "AssetPack", "AssetPackPacker", "TestSupport"]),
        .testTarget(
            name: "AssetPackAndroidTests",
            dependencies: ["AssetPackAndroid", "CAndroidAssets", "AssetPack", "AssetPackPacker", "AssetPackZip", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// swiftlang/swift-docc-plugin for `swift package generate-documentation`, only when ASSETPACK_DOCC=1
// (Tools/generate-docs.sh sets it): SwiftPM compiles a dependency's plugins in every clean build (about 15 s
// more on 2 cores) and apps that depend on assetpack would fetch it, for documentation they never build.
if ProcessInfo.processInfo.environment["ASSETPACK_DOCC"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
