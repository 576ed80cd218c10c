// swift-tools-version:6.0
// A sample app that packs its Assets folder at build time with assetpack's build-tool plugin and expands
// it onto writable storage at launch. Build, run and check it with ./check.sh (a step of .ci/run).
import PackageDescription

let package = Package(
    name: "SampleApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "assetpack", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "SampleApp",
            dependencies: [.product(name: "AssetPack", package: "assetpack")],
            // The plugin packs Assets into the resource Assets.zip; SwiftPM must not take the folder itself.
            exclude: ["Assets"],
            plugins: [.plugin(name: "AssetPackBuildPlugin", package: "assetpack")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
