import ViperKit

/// The items business service: the interface the ItemsList plugin provides
/// and the ItemsDetail plugin uses, declared once here, in the package both
/// depend on (as a provider publishes its interface for consumers).
public enum ItemsService: ServiceInterface {
  /// `items`.
  public static let name = "items"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
}
