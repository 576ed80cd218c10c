extension SystemError {
    /// The failure in plain words for a user, without the call's name (`no such file or folder`); codes without
    /// a sentence of their own read as the C library's text, starting in lower case (`input/output error`).
    package var reason: String {
        switch errno {
        case .noSuchFileOrDirectory: "no such file or folder"
        case .permissionDenied, .notPermitted: changesFileSystem ? "permission denied: cannot write here" : "permission denied"
        case .readOnlyFileSystem: "read-only file system: cannot write here"
        case .noSpace: "no space left on the device"
        case .notDirectory: "not a folder"
        case .isDirectory: "is a folder, not a file"
        case .fileTooLarge: "file too large: past the file-size limit"
        case .tooManyOpenFiles, .tooManyOpenFilesInSystem: "too many open files"
        case .nameTooLong: "the name is too long"
        case .tooManySymbolicLinkLevels: "a symbolic link is in the way (links are not followed)"
        case .fileExists: "already exists"
        case .directoryNotEmpty: "the folder is not empty"
        default: Self.lowercasingFirst(errno.description)
        }
    }

    /// True for a call that creates, changes or removes something (so a refusal means "cannot write here").
    /// `open`/`openat` are left out: they also only read.
    private var changesFileSystem: Bool {
        let writers = ["mkdir", "rmdir", "unlink", "rename", "link", "symlink", "write", "pwrite", "ftruncate", "fsync",
                       "syncfs", "chmod", "fchmod", "mkstemp", "mkdtemp", "ioctl(FICLONE)"]
        return writers.contains { call == $0 || call.hasPrefix($0 + " ") || call.hasPrefix($0 + "at") }
            || call.hasPrefix("renameat") || call.hasPrefix("fcntl(F_FULLFSYNC")
    }

    private static func lowercasingFirst(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, text.dropFirst().first?.isUppercase != true else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
