import VivariumLoading

/// One thing `vivarium check --app` found: a stable name, the files
/// involved, what is wrong and what to change.
package struct AppFinding: Codable, Sendable, Equatable {
  /// Whether the finding fails the check or is only listed.
  package enum Severity: String, Codable, Sendable {
    /// The app does not work as declared.
    case failed
    /// Worth knowing; the check still passes.
    case note
  }

  /// The stable name, `app.aspect`; docs/checking.md, "Checking a whole app", lists them.
  package let name: String
  /// Failed or note.
  package let severity: Severity
  /// The URN pattern of the module that declares what is wrong, if one does.
  package let module: String?
  /// The plugin files (and the manifest) involved, the declaring one first.
  package let files: [String]
  /// What is wrong, naming both sides.
  package let message: String
  /// What to change.
  package let fix: String

  /// Every name a finding can have, with what it means: `vivarium check
  /// --help` lists them.
  package static let names: [(name: String, meaning: String)] =
    [
      ("app.manifest", "the directory has no usable vivarium-app.json"),
      ("app.start", "the manifest's start link does not open"),
      ("app.plugin-refused", "the host refused a plugin file of the directory"),
      ("app.target-unresolved", "a declared push, present, replace or slot pattern matches no module"),
      ("app.target-ambiguous", "a declared pattern leads to more than one module"),
      ("app.target-arguments", "a declared target is passed arguments its module does not take, or lacks one it needs"),
      ("app.expects", "an output a module expects back is not one its target declares, with the same fields"),
      ("app.unreachable", "nothing from the start leads to the module, and the app has no scheme for deep links"),
      ("app.deep-link-only", "a note: only a deep link reaches the module"),
      ("app.navigation-undeclared", "a note: a plugin built before ViperKit 2.4 declares nothing it opens"),
      ("app.reach-unproven", "a note: nothing declared leads to the module, but an undeclaring one may"),
      ("app.without-plugin", "a note: what stops working with a plugin turned off, or named with --without"),
      ("app.event-unpublished", "a note: a plugin subscribes to a topic of events no plugin of the app publishes"),
      (
        "app.command-key-conflict",
        "a command's key is one the app takes, or another command that can be on the same screen has"
      ),
      ("app.command-id-conflict", "two modules that can be on one screen offer commands of the same id"),
    ] + ServiceFinding.ID.allCases.map { (AppCheck.name(of: $0), $0.meaning) }
}
