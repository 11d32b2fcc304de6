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
///   opens: [.push("items:detail:{itemID}", expects: [MessageSpec(name: "deleted", description: "Gone.")])])
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
  /// Outputs the module expects back from the target: each must be one the
  /// target's contract declares, with the same fields and types.
  public var expects: [MessageSpec]

  /// A target opened with `kind`.
  public init(_ kind: Kind, _ urn: String, expects: [MessageSpec] = []) {
    self.kind = kind
    self.urn = urn
    self.expects = expects
  }

  /// A target the module pushes onto the navigation stack.
  public static func push(_ urn: String, expects: [MessageSpec] = []) -> NavigationTarget {
    NavigationTarget(.push, urn, expects: expects)
  }

  /// A target the module presents modally.
  public static func present(_ urn: String, expects: [MessageSpec] = []) -> NavigationTarget {
    NavigationTarget(.present, urn, expects: expects)
  }

  /// A target the module replaces itself with.
  public static func replace(_ urn: String, expects: [MessageSpec] = []) -> NavigationTarget {
    NavigationTarget(.replace, urn, expects: expects)
  }
}
