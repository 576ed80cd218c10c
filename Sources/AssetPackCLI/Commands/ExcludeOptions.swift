import ArgumentParser
import AssetPack
import AssetPackPacker

/// `--exclude <glob>` (repeatable) and `--no-default-excludes`: which files of the source `build` leaves out.
struct ExcludeOptions: ParsableArguments {
    @Option(name: .customLong("exclude"),
            help: ArgumentHelp("Leave out files and folders matching <glob> (repeatable): a name at any depth (*.psd), "
                               + "a path from <source> (docs/*.md, raw/**/*.tmp), folders only with a trailing / (cache/).",
                               valueName: "glob"))
    var patterns: [String] = []

    @Flag(help: ArgumentHelp("Pack what is left out by default: "
                             + ExcludePatterns.defaultPatterns.joined(separator: " ") + "."))
    var noDefaultExcludes = false

    func validate() throws {
        _ = try exclusions()
    }

    /// The patterns in force.
    /// - Throws: a `ValidationError` naming a malformed pattern.
    func exclusions() throws -> ExcludePatterns {
        do {
            return try ExcludePatterns(patterns, includingDefaults: !noDefaultExcludes)
        } catch {
            throw ValidationError(error.message + ".")
        }
    }
}
