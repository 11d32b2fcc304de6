import ViperKit

extension SettingType {
  /// The values it takes, for the person: `true or false`, `a whole number
  /// from 1 to 10`, `any text`, `one of celsius, fahrenheit`.
  public var values: String {
    switch self {
    case .bool: "true or false"
    case .int(_, let range): "a whole number from \(range.lowerBound) to \(range.upperBound)"
    case .string: "any text"
    case .choice(_, let choices): "one of \(choices.joined(separator: ", "))"
    @unknown default: "a value of a newer ViperKit"
    }
  }

  /// Its kind's name, as `vivarium settings --json` writes it: `bool`,
  /// `int`, `string` or `choice`.
  public var kind: String {
    switch self {
    case .bool: "bool"
    case .int: "int"
    case .string: "string"
    case .choice: "choice"
    @unknown default: "unknown"
    }
  }

  /// The choices a person picks from: `true` and `false`, or the choices.
  /// Empty for a number or text, which the person types.
  public var choices: [String] {
    switch self {
    case .bool: ["true", "false"]
    case .choice(_, let choices): choices
    case .int, .string: []
    @unknown default: []
    }
  }

  /// Whether it takes `value`.
  public func admits(_ value: ArgumentValue) -> Bool {
    switch (self, value) {
    case (.bool, .bool), (.string, .string): true
    case (.int(_, let range), .int(let number)): range.contains(number)
    case (.choice(_, let choices), .string(let choice)): choices.contains(choice)
    default: false
    }
  }

  /// `text`, as a person types it, read as one of its values; nil when it
  /// is not one (say so with ``values``).
  public func value(parsing text: String) -> ArgumentValue? {
    let value: ArgumentValue? =
      switch self {
      case .bool: ArgumentValue(parsing: text, as: .bool)
      case .int: ArgumentValue(parsing: text.trimmingSpaces, as: .int)
      case .string, .choice: .string(text)
      @unknown default: nil
      }
    return value.flatMap { admits($0) ? $0 : nil }
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}

/// Checks the settings a contract declares (``ViperKit/SettingDeclaration``)
/// and the values set for them.
public enum SettingCheck {
  /// Every problem with `contract`'s setting declarations, each saying what
  /// to fix; empty when they are well formed.
  static func problems(_ contract: Contract) -> [String] {
    let urn = contract.urn
    var problems: [String] = []
    var seen: Set<String> = []
    for declaration in contract.settings {
      let key = declaration.key
      if !seen.insert(key).inserted { problems.append("\(urn): setting '\(key)' is declared twice") }
      if key.isEmpty || key.contains(where: { $0.isWhitespace || $0.isNewline }) {
        problems.append("\(urn): setting key '\(key)' is empty or has a space; name it like 'area.name'")
        continue
      }
      guard let type = declaration.type else { continue }
      if declaration.description.isEmpty {
        problems.append("\(urn): setting '\(key)' has no description; say in one sentence what it changes")
      }
      switch type {
      case .int(let value, let range) where !range.contains(value):
        problems.append(
          "\(urn): setting '\(key)' defaults to \(value), outside \(range.lowerBound)...\(range.upperBound); make the default one of its values"
        )
      case .choice(_, let choices) where choices.isEmpty:
        problems.append("\(urn): setting '\(key)' is a choice among none; list its choices")
      case .choice(let value, let choices) where !choices.contains(value):
        problems.append(
          "\(urn): setting '\(key)' defaults to '\(value)', which is not one of its choices (\(choices.joined(separator: ", "))); make the default one of them"
        )
      case .choice(_, let choices) where Set(choices).count < choices.count:
        problems.append("\(urn): setting '\(key)' lists a choice twice; list each once")
      default: break
      }
    }
    return problems
  }

  /// Why `value` may not be set for `declaration`, declared by `plugin`;
  /// nil when it may (or when the declaration has no type).
  public static func refusal(_ value: ArgumentValue, for declaration: SettingDeclaration, by plugin: String)
    -> String?
  {
    guard let type = declaration.type, !type.admits(value) else { return nil }
    return
      "'\(value)' is not a value of the setting '\(declaration.key)': \(plugin) declares it as \(type.values)"
  }
}
