import ViperKit

/// The people business service: the demo's members, provided by the Profile
/// plugin and used by the dashboard (for the signed-in person's city).
/// Declared once here, in the small package both depend on.
public enum PeopleService: ServiceInterface {
  /// `people`.
  public static let name = "people"
  /// The interface's version.
  public static let version: SemanticVersion = "1.0"
  /// The member with a user name (`ada`); fails with ``UnknownPerson``.
  public static let person = ServiceOperation<String, Person>("person", failure: UnknownPerson.self)
}

/// A member of the demo app.
public struct Person: Codable, Sendable, Equatable {
  /// The user name they sign in with: `ada`.
  public var id: String
  /// Their full name.
  public var name: String
  /// The city they live in, as the weather service knows it.
  public var city: String

  /// A member.
  public init(id: String, name: String, city: String) {
    self.id = id
    self.name = name
    self.city = city
  }
}

/// There is no member with the user name asked for.
public struct UnknownPerson: Error, Codable, Sendable, Equatable {
  /// The user name asked for.
  public var id: String

  /// The failure for `id`.
  public init(id: String) { self.id = id }
}
