/// A screen a module may open through its ``AppRouter``: how it opens it, the
/// URN pattern of what it opens, and the outputs it expects back from it.
///
/// A contract lists every push, present and replace its module may ask for
/// in ``Contract/opens``; what it embeds is declared by its slots
/// (``SlotSpec/accepts``). The host reports any request the contract does
/// not declare, and the conformance checks and `vivarium check --app` fail
/// it, so that a typo in a URN is found before a person taps the button.
///
/// ```swift
/// Contract(
///   urn: "items:list", summary: "The items.",
///   opens: [
///     .push("items:detail:{itemID}", arguments: ["itemID": .int]),
///     .present("weather:today:{city}", arguments: ["units": .string]),
///   ])
/// ```
public struct NavigationTarget: Codable, Hashable, Sendable {
  /// How the module opens the target.
  public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
    /// ``AppRouter/push(_:)-(String)``.
    case push
    /// ``AppRouter/present(_:)-(String)``.
    case present
    /// ``AppRouter/replace(_:)-(String)``.
    case replace
  }

  /// How the module opens it.
  public var kind: Kind
  /// The URN pattern of what it opens, as the target's contract declares it
  /// (`items:detail:{itemID}`); a request matches it when the pattern
  /// matches the requested URN.
  public var urn: String
  /// The arguments the module passes, with their types: any placeholder of
  /// ``urn`` it wants typed, and every `?name=value` it adds to the URN. A
  /// request adding a query argument not listed here, or passing a value
  /// that is not of the listed type, is not declared; a placeholder not
  /// listed may hold any value. Each must be an argument the target's
  /// contract takes, with the same type (`vivarium check --app` proves it).
  public var arguments: [String: ArgumentType]
  /// Outputs the module expects back from the target: each must be one the
  /// target's contract declares, with the same fields and types.
  public var expects: [MessageSpec]

  /// A target opened with `kind`, passing `arguments` and expecting
  /// `expects` back.
  public init(
    _ kind: Kind, _ urn: String, arguments: [String: ArgumentType] = [:], expects: [MessageSpec] = []
  ) {
    self.kind = kind
    self.urn = urn
    self.arguments = arguments
    self.expects = expects
  }

  /// A target the module pushes onto the navigation stack.
  public static func push(
    _ urn: String, arguments: [String: ArgumentType] = [:], expects: [MessageSpec] = []
  ) -> NavigationTarget {
    NavigationTarget(.push, urn, arguments: arguments, expects: expects)
  }

  /// A target the module presents modally.
  public static func present(
    _ urn: String, arguments: [String: ArgumentType] = [:], expects: [MessageSpec] = []
  ) -> NavigationTarget {
    NavigationTarget(.present, urn, arguments: arguments, expects: expects)
  }

  /// A target the module replaces itself with.
  public static func replace(
    _ urn: String, arguments: [String: ArgumentType] = [:], expects: [MessageSpec] = []
  ) -> NavigationTarget {
    NavigationTarget(.replace, urn, arguments: arguments, expects: expects)
  }

  private enum CodingKeys: String, CodingKey { case kind, urn, arguments, expects }

  /// Decodes a target; one without `arguments` or `expects` passes and
  /// expects nothing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    kind = try container.decode(Kind.self, forKey: .kind)
    urn = try container.decode(String.self, forKey: .urn)
    arguments = try container.decodeIfPresent([String: ArgumentType].self, forKey: .arguments) ?? [:]
    expects = try container.decodeIfPresent([MessageSpec].self, forKey: .expects) ?? []
  }
}
