import Foundation
import PackagePlugin

/// `swift package pack-assets`: a one-off `assetpack build` from SwiftPM, for a bundle to ship by other
/// means (an Xcode app's folder reference, an Android app's assets).
///
/// ```
/// swift package --allow-writing-to-package-directory pack-assets [--target NAME]... [--input DIR]...
///     [--output PATH] [--archive] [ASSETPACK-BUILD-OPTIONS]
/// ```
/// - `--target NAME` packs the target's `Assets` folder into `NAME.bundle` (with `--archive`, `NAME.zip`).
/// - `--input DIR` packs a folder given relative to the package (say `assets`) into `DIR.bundle` (`DIR.zip`).
/// - With neither, every target that has an `Assets` folder is packed.
/// - `--output PATH` (one input only) names the bundle or archive, relative to the package.
/// - Any other argument goes to `assetpack build` as it is: `--exclude '*.psd'`, `--threshold 4M`, ...
/// Outputs land in the package folder, the only place the plugin may write.
@main
struct PackAssetsCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) throws {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(Self.usage)
            return
        }
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let inputs = extractor.extractOption(named: "input")
        let outputs = extractor.extractOption(named: "output")
        let archive = extractor.extractFlag(named: "archive") > 0
        let passedOn = extractor.remainingArguments.filter { $0 != "--" }
        let package = context.package.directoryURL
        var jobs = try targetNames.map { name in try Self.job(forTarget: name, in: context.package, archive: archive) }
        jobs += inputs.map { Self.job(forInput: $0, in: package, archive: archive) }
        if targetNames.isEmpty && inputs.isEmpty {
            jobs = context.package.targets.compactMap { Self.job(forTargetWithAssets: $0, archive: archive, package: package) }
            guard !jobs.isEmpty else {
                throw PackError("no target has an Assets folder; name a target with --target or a folder with --input")
            }
        }
        if let output = outputs.last {
            guard jobs.count == 1, outputs.count == 1 else { throw PackError("--output names one bundle; give one --target or --input") }
            jobs[0].output = Self.resolve(output, in: package)
        }
        let tool = try context.tool(named: "AssetPackCLI").url
        for job in jobs {
            try Self.run(tool, ["build", job.input.path, job.archive ? "--archive" : "--output", job.output.path] + passedOn)
        }
    }

    /// One folder to pack and where.
    struct Job {
        var input: URL
        var output: URL
        var archive: Bool
    }

    static func job(forTarget name: String, in package: Package, archive: Bool) throws -> Job {
        guard let target = package.targets.first(where: { $0.name == name }) else {
            throw PackError("no target named \(name) in package \(package.displayName)")
        }
        guard let job = job(forTargetWithAssets: target, archive: archive, package: package.directoryURL) else {
            throw PackError("target \(name) has no folder Assets")
        }
        return job
    }

    static func job(forTargetWithAssets target: Target, archive: Bool, package: URL) -> Job? {
        guard let directory = directory(of: target) else { return nil }
        let assets = directory.appending(path: "Assets", directoryHint: .isDirectory)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: assets.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
        return Job(input: assets, output: package.appending(path: target.name + (archive ? ".zip" : ".bundle")), archive: archive)
    }

    static func job(forInput input: String, in package: URL, archive: Bool) -> Job {
        let folder = resolve(input, in: package)
        let name = folder.standardizedFileURL.lastPathComponent
        return Job(input: folder, output: package.appending(path: name + (archive ? ".zip" : ".bundle")), archive: archive)
    }

    /// `path` as a URL, relative to the package folder unless absolute.
    static func resolve(_ path: String, in package: URL) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
    }

    /// The folder of a source target (Swift or C-family); nil for other kinds.
    static func directory(of target: Target) -> URL? {
        switch target {
        case let swift as SwiftSourceModuleTarget: swift.directoryURL
        case let clang as ClangSourceModuleTarget: clang.directoryURL
        default: nil
        }
    }

    /// Runs `assetpack` with `arguments`; its output goes to ours.
    static func run(_ tool: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit && process.terminationStatus == 0 else {
            throw PackError("assetpack \(arguments.joined(separator: " ")) failed (exit status \(process.terminationStatus))")
        }
    }

    static let usage = """
        OVERVIEW: Pack asset folders into bundles with assetpack build.

        USAGE: swift package --allow-writing-to-package-directory pack-assets [--target NAME]... [--input DIR]...
                             [--output PATH] [--archive] [assetpack build options]

        OPTIONS:
          --target NAME   Pack the target's Assets folder into NAME.bundle (repeatable).
          --input DIR     Pack the folder DIR (relative to the package) into DIR.bundle (repeatable).
                          With neither, every target that has an Assets folder is packed.
          --output PATH   Where to write the bundle (one --target or --input only); relative to the package.
          --archive       Write one zip (NAME.zip) instead of a bundle folder.
          Anything else is passed to assetpack build: --exclude GLOB, --no-default-excludes, --threshold SIZE,
          --level N, --print-android-settings, --quiet (see assetpack build --help).
        """
}

/// A failure the plugin reports as one sentence.
struct PackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
