import ViperKit

/// The session business service: who is signed in, provided by the Login
/// plugin, which owns the setting that says so (ViperKit 3.0 settings
/// ownership) and alone may change it. The dashboard signs out through it.
/// Declared once here, in the small package both depend on.
public enum SessionService: ServiceInterface {
  /// `session`.
  public static let name = "session"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
  /// Ends the session of the user named (`ada`): clears ``userSetting``
  /// when it names them. Answers whether it did.
  public static let signOut = ServiceOperation<String, Bool>("signOut")
  /// The app-wide setting naming who is signed in: owned by the Login
  /// plugin, readable by every other (route guards require it).
  public static let userSetting = "session.user"
}
