/// An app-wide setting a module's plugin owns (ViperKit 3.0), declared in
/// the module's ``Contract/settings``.
///
/// Settings are app-wide, but each belongs to the plugin that declares it:
/// only that plugin may change it, and another plugin may read it only
/// when it is declared ``readableByOthers`` (as the sign-in plugin shares
/// who is signed in, for the guards and the dashboard). A setting no
/// plugin declares may be read and changed by any. The host
/// checks each read and write against the declarations of every loaded
/// plugin; declare every key your modules write.
public struct SettingDeclaration: Codable, Hashable, Sendable {
  /// The setting's key, such as `session.user`.
  public var key: String
  /// Whether other plugins' modules may read it (none may change it).
  public var readableByOthers: Bool

  /// Declares `key` as owned by this module's plugin; readable by other
  /// plugins when `readableByOthers`.
  public init(_ key: String, readableByOthers: Bool = false) {
    self.key = key
    self.readableByOthers = readableByOthers
  }
}
