/// `1 file`, `2 files`: a count and its noun, the plural made with an s unless given (`entry`, `entries`).
/// The one way the text output counts things.
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}
