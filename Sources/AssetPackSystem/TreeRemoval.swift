/// Removes a file or a whole folder tree by descriptor, never following a symlink. It only removes
/// assetpack's own trees, so a folder whose owner bits were taken away gets them back first.
package enum TreeRemoval {
    /// Removes `name` inside `directory`, recursively; a missing name is not an error.
    package static func remove(_ name: String, in directory: Descriptor) throws(SystemError) {
        try remove(FileName(name), in: directory)
    }

    /// Removes `name` inside `directory`, recursively; a missing name is not an error.
    package static func remove(_ name: FileName, in directory: Descriptor) throws(SystemError) {
        try name.withCString { remove($0, shown: directory.child(name.description), in: directory) }.get()
    }

    private static func remove(_ name: UnsafePointer<CChar>, shown: String, in directory: Descriptor) -> Result<Void, SystemError> {
        Result { () throws(SystemError) in
            guard let status = try directory.status(name, shown: shown).get() else { return }
            if status.kind == .directory {
                if status.permissions & 0o700 != 0o700 {
                    try directory.setPermissions(of: name, status.permissions | 0o700, shown: shown).get()
                }
                let child = try directory.open(name, .directory, path: shown).get()
                for inner in try child.names() { try remove(inner, in: child) }
            }
            try directory.remove(name, isDirectory: status.kind == .directory, shown: shown).get()
        }
    }
}
