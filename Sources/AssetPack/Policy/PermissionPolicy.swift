/// The permission bits the expander gives what it creates: what the bundle asks for, minus setuid,
/// setgid, sticky and world-writable bits, plus owner read and write (owner search for directories),
/// so the app can always read, replace and remove its own files.
public enum PermissionPolicy {
    /// A file's bits when the bundle states none.
    public static let defaultFile: UInt32 = 0o644
    /// A directory's bits.
    public static let defaultDirectory: UInt32 = 0o755

    /// The bits for a file whose bundle or archive states `requested` (nil: the default).
    public static func file(_ requested: UInt32?) -> UInt32 {
        guard let requested else { return defaultFile }
        return (requested & 0o775) | 0o600
    }

    /// The bits for a directory whose bundle or archive states `requested` (nil: the default).
    public static func directory(_ requested: UInt32?) -> UInt32 {
        guard let requested else { return defaultDirectory }
        return (requested & 0o775) | 0o700
    }
}
