import ViperKit

/// Checks arguments given as text (URN placeholders, `?query`, `--arg`)
/// against a contract: shared by the host's router, which refuses a URN whose
/// arguments are wrong, and the conformance checks, which fail a request the
/// router would refuse.
public enum ArgumentCheck {
  /// What is wrong with the arguments, and a message naming it.
  public struct Problem: Error, Equatable, Sendable {
    /// Which rule they break.
    public enum Kind: Equatable, Sendable {
      /// An argument the contract does not take.
      case unknown
      /// An argument given twice.
      case duplicate
      /// A value the argument's type or choices refuse.
      case wrongType
      /// A required argument not given.
      case missing
    }
    /// Which rule.
    public let kind: Kind
    /// Names the argument, `owner`, what was given and what to give.
    public let message: String
  }

  /// The values of `given` as arguments of `contract`, defaults filled in; or
  /// the first problem, in the order given, naming the argument, where it
  /// came from (`origin`) and `owner` (the module, as the reader knows it).
  public static func bind(
    _ given: [(name: String, value: String, origin: String)], to contract: Contract, owner: String
  ) -> Result<[String: ArgumentValue], Problem> {
    var values: [String: ArgumentValue] = [:]
    var origins: [String: String] = [:]
    for (name, text, origin) in given {
      guard let spec = contract.argument(named: name) else {
        return .failure(
          Problem(
            kind: .unknown,
            message: "unknown argument '\(name)' (\(origin)) for \(owner); it takes \(describe(contract.arguments))"))
      }
      if let first = origins[name] {
        return .failure(
          Problem(
            kind: .duplicate,
            message: "argument '\(name)' of \(owner) is given twice: \(first) and \(origin); give it once"))
      }
      let value: ArgumentValue
      switch self.value(text, for: spec) {
      case .success(let parsed): value = parsed
      case .failure(let refused):
        return .failure(
          Problem(
            kind: .wrongType,
            message: "argument '\(name)' of \(owner) \(refused.requirement), got '\(text)' (\(origin))"))
      }
      values[name] = value
      origins[name] = origin
    }
    for spec in contract.arguments where values[spec.name] == nil {
      guard let value = spec.defaultValue else {
        return .failure(
          Problem(
            kind: .missing,
            message:
              "missing required argument '\(spec.name)' (\(spec.type)) of \(owner); pass it with --arg \(spec.name)=VALUE or ?\(spec.name)=VALUE in the URN"
          ))
      }
      values[spec.name] = value
    }
    return .success(values)
  }

  /// The arguments `urn` gives the module of `pattern`, which matches it:
  /// its placeholders, then its `?query`, each with where it came from.
  public static func given(_ urn: ParsedURN, matching pattern: URNPattern) -> [(
    name: String, value: String, origin: String
  )] {
    given(placeholders: pattern.placeholderValues(in: urn.segments), query: urn.query)
  }

  /// Arguments given as a URN's `placeholders` and `query` (decoded, each
  /// with its name), each with where it came from. Room is kept for `extra`
  /// more.
  public static func given(
    placeholders: [(name: String, value: String)], query: [(name: String, value: String)], extra: Int = 0
  ) -> [(name: String, value: String, origin: String)] {
    var given: [(name: String, value: String, origin: String)] = []
    given.reserveCapacity(placeholders.count + query.count + extra)
    for (name, value) in placeholders { given.append((name, value, "in the URN")) }
    for (name, value) in query { given.append((name, value, "in the URN query")) }
    return given
  }

  /// Why a text is no value of an argument: what it must be instead.
  public struct Refused: Error, Equatable, Sendable {
    /// `must be an int such as 42`, `must be one of metric, imperial`.
    public let requirement: String
  }

  /// The value `text` gives the argument `spec`: of its type, and one of its
  /// choices if it has any.
  public static func value(_ text: String, for spec: ArgumentSpec) -> Result<ArgumentValue, Refused> {
    guard let value = ArgumentValue(parsing: text, as: spec.type) else {
      return .failure(Refused(requirement: "must be \(article(spec.type))\(example(spec.type))"))
    }
    guard spec.choices.isEmpty || spec.choices.contains(value) else {
      return .failure(
        Refused(requirement: "must be one of \(spec.choices.map(\.description).joined(separator: ", "))"))
    }
    return .success(value)
  }

  /// `compact (bool), itemID (int)`: names and their types, sorted by name.
  public static func describe(_ types: [String: ArgumentType]) -> String {
    types.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
  }

  /// `itemID (int, required), compact (bool, default false)`, or `no arguments`.
  public static func describe(_ arguments: [ArgumentSpec]) -> String {
    guard !arguments.isEmpty else { return "no arguments" }
    return arguments.map { spec in
      "\(spec.name) (\(spec.type), \(spec.defaultValue.map { "default \($0)" } ?? "required"))"
    }.joined(separator: ", ")
  }

  /// `an int`, `a bool`.
  public static func article(_ type: ArgumentType) -> String {
    switch type {
    case .int: "an int"
    case .bool: "a bool"
    case .double: "a double"
    case .string: "a string"
    @unknown default: "a \(type)"
    }
  }

  private static func example(_ type: ArgumentType) -> String {
    switch type {
    case .int: " such as 42"
    case .bool: ": true or false"
    case .double: " such as 2.5"
    case .string: ""
    @unknown default: ""
    }
  }
}
