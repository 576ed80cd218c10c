/// The plan of one window of a tree installed a window at a time (``ManifestPlanner``,
/// ``ArchiveWindowPlanner``), and the folders made by earlier windows that its items go into.
struct PlanWindow {
    /// The window's items, as a plan of their own. Its identity and stamp are the bundle's for a bundle;
    /// for an archive they are only known once the last window is planned, and are empty here.
    let plan: ExpansionPlan
    /// The folders of earlier windows that this window's items go into (flushed again, when durable).
    let openFolders: [AssetPath]
}
