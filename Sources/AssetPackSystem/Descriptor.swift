/// An open file descriptor owned by this object and closed when it goes away, with the path it stands for
/// (in messages). A name given to a method is one component in this directory and is **never followed when it
/// is a symbolic link**, so a link planted on disk cannot redirect a call.
package final class Descriptor: @unchecked Sendable {
    /// The descriptor.
    package let fd: FileDescriptor
    /// The path shown in messages.
    package let path: String
    /// False once ``detach()`` handed the descriptor on.
    private var owns = true

    /// Takes ownership of `fd`.
    package init(_ fd: FileDescriptor, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Takes ownership of the C descriptor `fd`.
    package convenience init(_ fd: Int32, path: String) {
        self.init(FileDescriptor(rawValue: fd), path: path)
    }

    deinit { if owns { fd.close() } }

    /// Hands the descriptor to the caller, who must close it; this object will not.
    package func detach() -> FileDescriptor {
        owns = false
        return fd
    }

    /// `path/name`, as messages show a name in this directory.
    package func child(_ name: String) -> String { path + "/" + name }

    // MARK: - Opening

    /// Opens the directory at `path` (the caller's own path: links in it are the caller's choice).
    package static func directory(_ path: String) throws(SystemError) -> Descriptor {
        Descriptor(try FileDescriptor.open(path, .directory), path: path)
    }

    /// Opens the child directory `name`.
    package func directory(_ name: String) throws(SystemError) -> Descriptor {
        try open(name, .directory, path: child(name)).get()
    }

    /// Opens the child directory `name`, creating it with `mode` (the umask applies) when missing.
    package func directory(_ name: String, creatingWith mode: UInt32) throws(SystemError) -> Descriptor {
        try makeDirectory(name, mode: mode)
        return try directory(name)
    }

    /// Opens the existing file `name` for reading, or with `.readWrite` for reading and writing (a partly
    /// written file that a resume continues), or with `.nonBlocking` so that a FIFO does not hang the open.
    package func openFile(_ name: String, _ flags: FileDescriptor.OpenFlags = []) throws(SystemError) -> Descriptor {
        try open(name, flags, path: child(name)).get()
    }

    /// Creates the new file `name` (`O_EXCL`) with permission bits `mode` (owner-only by default; the umask
    /// applies), write-only or (`readable`) for reading too.
    package func createFile(_ name: String, readable: Bool = false, mode: UInt32 = 0o600) throws(SystemError) -> Descriptor {
        try open(name, [readable ? .readWrite : .writeOnly, .create, .exclusive], mode: mode, path: child(name)).get()
    }

    // MARK: - Looking

    /// What is at `name`, without following a symlink (`fstatat(2)`); nil when nothing is.
    package func status(_ name: String) throws(SystemError) -> FileStatus? {
        try status(name, shown: child(name)).get()
    }

    /// The status of the open file itself (`fstat(2)`).
    package func status() throws(SystemError) -> FileStatus {
        try fd.status(path: path)
    }

    /// The names in this directory (see ``FileName`` for names that are not UTF-8): `readdir` of a
    /// duplicate, so this descriptor can still be used (and listed again).
    package func names() throws(SystemError) -> [FileName] {
        let copy = try systemCall("dup", path) { system_dup(fd.rawValue) }.get()
        guard let stream = system_fdopendir(copy) else {
            let error = SystemError("fdopendir", .current, path: path)
            _ = system_close(copy)
            throw error
        }
        system_rewinddir(stream)
        return try FileName.readAll(stream, path: path)
    }

    /// The target of the symbolic link `name` (`readlinkat(2)`).
    package func readSymlink(_ name: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: 4097)
        let count = try systemCall("readlinkat", child(name)) { system_readlinkat(fd.rawValue, name, &buffer, 4096) }.get()
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Changing

    /// `mkdirat(2)`; returns false when the name already exists.
    @discardableResult
    package func makeDirectory(_ name: String, mode: UInt32) throws(SystemError) -> Bool {
        try systemCall("mkdirat", child(name)) { system_mkdirat(fd.rawValue, name, CInterop.Mode(mode)) }
            .value(orNilFor: .fileExists) != nil
    }

    /// `unlinkat(2)` of the file (or link) `name`; a missing name is not an error.
    package func remove(_ name: String) throws(SystemError) {
        try remove(name, isDirectory: false, shown: child(name)).get()
    }

    /// `unlinkat(2)` with `AT_REMOVEDIR` of the folder `name`: true when it was removed or was not there,
    /// false when it is not empty (it is then left as it is).
    package func removeFolderIfEmpty(_ name: String) throws(SystemError) -> Bool {
        let result = systemCall("unlinkat", child(name)) { system_unlinkat(fd.rawValue, name, _AT_REMOVEDIR) }
        if try result.value(orNilFor: .noSuchFileOrDirectory, .directoryNotEmpty, .fileExists) != nil { return true }
        return try status(name) == nil
    }

    /// `symlinkat(2)`: a new link `name` to `target`.
    package func makeSymlink(_ name: String, target: String) throws(SystemError) {
        _ = try systemCall("symlinkat", child(name)) { system_symlinkat(target, fd.rawValue, name) }.get()
    }

    /// `renameat(2)` of `name` to `newName` in `directory`, replacing a file there. Messages show `shown`
    /// (the target's path by default).
    package func rename(_ name: String, to newName: String, in directory: Descriptor,
                        shown: String? = nil) throws(SystemError) {
        _ = try systemCall("renameat", shown ?? directory.child(newName)) {
            system_renameat(fd.rawValue, name, directory.fd.rawValue, newName)
        }.get()
    }

    /// Swaps the names `first` and `second` atomically: `renameat2(RENAME_EXCHANGE)` on Linux,
    /// `renameatx_np(RENAME_SWAP)` on Darwin. Returns false when the system or file system cannot.
    package func exchange(_ first: String, _ second: String) throws(SystemError) -> Bool {
        #if os(Linux)
        guard let renameat2 = LinuxExtras.renameat2 else { return false }
        let swapped = systemCall("renameat2", child(second)) {
            renameat2(fd.rawValue, first, fd.rawValue, second, _RENAME_EXCHANGE)
        }
        return try swapped.value(orNilFor: .noFunction, .invalidArgument, .notSupported) != nil
        #elseif canImport(Darwin)
        let swapped = systemCall("renameatx_np", child(second)) {
            system_renameatx_np(fd.rawValue, first, fd.rawValue, second, _RENAME_SWAP)
        }
        return try swapped.value(orNilFor: .notSupported, .invalidArgument) != nil
        #else
        return false
        #endif
    }

    /// `linkat(2)`: `name` here gets the second name `newName` in `directory`. Returns false when hard links
    /// are not possible there (another file system, or one without them).
    package func link(_ name: String, to newName: String, in directory: Descriptor) throws(SystemError) -> Bool {
        try link(name, to: newName, in: directory, shown: directory.child(newName))
    }

    // MARK: - By C name (any bytes: also names that are not UTF-8)

    /// ``status(_:)`` of a listed name, which may not be UTF-8.
    package func status(_ name: FileName) throws(SystemError) -> FileStatus? {
        try name.withCString { status($0, shown: child(name.description)) }.get()
    }

    /// ``directory(_:)`` of a listed name, which may not be UTF-8.
    package func directory(_ name: FileName) throws(SystemError) -> Descriptor {
        try name.withCString { open($0, .directory, path: child(name.description)) }.get()
    }

    /// ``makeDirectory(_:mode:)`` of a name, which may not be UTF-8.
    package func makeDirectory(_ name: FileName, mode: UInt32) throws(SystemError) -> Bool {
        try name.withCString { raw in
            systemCall("mkdirat", child(name.description)) { system_mkdirat(fd.rawValue, raw, CInterop.Mode(mode)) }
        }.value(orNilFor: .fileExists) != nil
    }

    /// ``link(_:to:in:)`` of a listed name (which may not be UTF-8) under the same name in `directory`: anything
    /// but a folder, a symbolic link included (never followed).
    package func link(_ name: FileName, in directory: Descriptor) throws(SystemError) -> Bool {
        try name.withCString { raw in
            Result { () throws(SystemError) in
                try link(raw, to: raw, in: directory, shown: directory.child(name.description))
            }
        }.get()
    }

    /// `openat(2)` of `name` with `flags`, `O_NOFOLLOW` and `O_CLOEXEC`; the new descriptor stands for `path`.
    /// A folder opened to be read (`flags` is `.directory`) is opened with `O_NOATIME` where there is one and the
    /// process owns it: listing it then writes no access time (on Linux's default `relatime`, reading each folder
    /// of a freshly installed tree would write each folder's inode again).
    func open(_ name: UnsafePointer<CChar>, _ flags: FileDescriptor.OpenFlags, mode: UInt32 = 0,
              path: String) -> Result<Descriptor, SystemError> {
        if flags == .directory, _O_NOATIME != 0 {
            let quiet = systemCall("openat", path) {
                system_openat(fd.rawValue, name, flags.rawValue | _O_NOATIME | _O_NOFOLLOW | _O_CLOEXEC, CInterop.Mode(mode))
            }
            if case .failure(let error) = quiet, error.errno == .notPermitted {
                // Not the owner: opened as anyone may.
            } else {
                return quiet.map { Descriptor($0, path: path) }
            }
        }
        return systemCall("openat", path) {
            system_openat(fd.rawValue, name, flags.rawValue | _O_NOFOLLOW | _O_CLOEXEC, CInterop.Mode(mode))
        }.map { Descriptor($0, path: path) }
    }

    /// `fstatat(2)` of `name` with `AT_SYMLINK_NOFOLLOW`; nil when nothing is there.
    func status(_ name: UnsafePointer<CChar>, shown: @autoclosure () -> String) -> Result<FileStatus?, SystemError> {
        var info = CInterop.Status()
        return Result { () throws(SystemError) in
            try systemCall("fstatat", shown()) { system_fstatat(fd.rawValue, name, &info, _AT_SYMLINK_NOFOLLOW) }
                .value(orNilFor: .noSuchFileOrDirectory, .notDirectory).map { _ in FileStatus(info) }
        }
    }

    /// `fchmodat(2)` of `name` with `AT_SYMLINK_NOFOLLOW` (which fails on a link instead of following it).
    func setPermissions(of name: UnsafePointer<CChar>, _ mode: UInt32, shown: @autoclosure () -> String) -> Result<Void, SystemError> {
        systemCall("fchmodat", shown()) { system_fchmodat(fd.rawValue, name, CInterop.Mode(mode), _AT_SYMLINK_NOFOLLOW) }
            .map { _ in () }
    }

    /// `linkat(2)` of `name` to `newName` in `directory`; false when hard links are not possible there.
    private func link(_ name: UnsafePointer<CChar>, to newName: UnsafePointer<CChar>, in directory: Descriptor,
                      shown: @autoclosure () -> String) throws(SystemError) -> Bool {
        switch systemCall("linkat", shown(), { system_linkat(fd.rawValue, name, directory.fd.rawValue, newName, 0) }) {
        case .success: return true
        case .failure(let error) where [.improperLink, .notPermitted, .notSupported, .tooManyLinks].contains(error.errno): return false
        case .failure(let error): throw error
        }
    }

    /// `unlinkat(2)` of `name`, with `AT_REMOVEDIR` for an (empty) folder; a missing name is not an error.
    func remove(_ name: UnsafePointer<CChar>, isDirectory: Bool, shown: @autoclosure () -> String) -> Result<Void, SystemError> {
        Result { () throws(SystemError) in
            _ = try systemCall("unlinkat", shown()) { system_unlinkat(fd.rawValue, name, isDirectory ? _AT_REMOVEDIR : 0) }
                .value(orNilFor: .noSuchFileOrDirectory)
        }
    }
}
