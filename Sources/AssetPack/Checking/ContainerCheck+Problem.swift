extension ContainerCheck {
    /// Something wrong in the container.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// What is wrong.
        public enum Kind: String, Sendable {
            /// No bundle manifest anywhere in the container.
            case noBundle = "no-bundle"
            /// A packing archive is deflated by the container instead of stored.
            case recompressed
            /// Stored data does not start at a multiple of the alignment.
            case misaligned
            /// The manifest cannot be read, or disagrees with its identity file.
            case manifest
            /// A file, an archive or an archive's entry the manifest lists is not there.
            case missing
            /// A size, CRC-32 or compressed size differs from the manifest's, or an archive cannot be read.
            case mismatch
        }

        /// Which question a problem answers no to.
        public enum Aspect: String, Sendable {
            /// Is there a bundle at all?
            case found
            /// Are the packing archives stored by the container?
            case stored
            /// Does stored data start at a multiple of the alignment?
            case aligned
            /// Is every file the manifest lists there as it records?
            case matches
        }

        /// What is wrong.
        public let kind: Kind
        /// The container entry concerned (or the container itself).
        public let path: String
        /// A sentence saying what is wrong and, where there is one, the fix.
        public let message: String

        /// The question it answers no to.
        public var aspect: Aspect {
            switch kind {
            case .noBundle: .found
            case .recompressed: .stored
            case .misaligned: .aligned
            case .manifest, .missing, .mismatch: .matches
            }
        }

        /// `path: message`.
        public var description: String { "\(path): \(message)" }
    }
}
