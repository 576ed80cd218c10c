import ArgumentParser
import AssetPack

/// The check of a `--root` value (`expand`, `status --source`): a folder of the archive or folder given,
/// as a relative path (`assets/data`). Anything else is a usage error naming the option, before any file
/// is opened, not a refusal of the input.
enum RootOption {
    /// Refuses `root` when it is not a relative path of safe components (``AssetPath/problem(withPath:)``).
    /// - Throws: `ValidationError`: `--root "/assets/data": absolute path; give a folder of the archive …`.
    static func check(_ root: String?) throws(ValidationError) {
        guard let root, let problem = AssetPath.problem(withPath: root) else { return }
        throw ValidationError("--root \"\(root)\": \(problem); give a folder of the archive or folder such as "
                              + "assets/data, or leave --root out for all of it")
    }
}
