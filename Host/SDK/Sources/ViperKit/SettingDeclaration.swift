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
///
/// A setting declared with a ``type`` (ViperKit 3.1) is the person's to
/// change too: `vivarium settings` and the app's settings screen list it
/// with its ``description`` and set it, and a value that is not of its
/// type is refused, naming the declaration. Until it is set, it reads as
/// its type's default:
///
/// ```swift
/// SettingDeclaration(
///   "weather.units", .choice(default: "celsius", among: ["celsius", "fahrenheit"]),
///   description: "How the forecast shows temperatures.")
/// ```
public struct SettingDeclaration: Codable, Hashable, Sendable {
  /// The setting's key, such as `session.user`.
  public var key: String
  /// Whether other plugins' modules may read it (none may change it).
  public var readableByOthers: Bool
  /// The values it takes and its default, when the person may change it
  /// (ViperKit 3.1); nil for a setting only the plugin's modules set.
  public var type: SettingType?
  /// What it changes, for the person: one sentence (ViperKit 3.1).
  public var description: String

  /// Declares `key` as owned by this module's plugin; readable by other
  /// plugins when `readableByOthers`. Only the plugin's modules set it.
  public init(_ key: String, readableByOthers: Bool = false) {
    self.key = key
    self.readableByOthers = readableByOthers
    self.type = nil
    self.description = ""
  }

  /// Declares `key` as owned by this module's plugin and the person's to
  /// change, taking the values of `type`, with `description` saying what
  /// it changes (ViperKit 3.1); readable by other plugins when
  /// `readableByOthers`.
  public init(_ key: String, _ type: SettingType, description: String, readableByOthers: Bool = false) {
    self.key = key
    self.readableByOthers = readableByOthers
    self.type = type
    self.description = description
  }

  /// Decodes a declaration; ``type`` and ``description`` (3.1), which
  /// earlier declarations lack, are nil and empty when missing.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    key = try container.decode(String.self, forKey: .key)
    readableByOthers = try container.decode(Bool.self, forKey: .readableByOthers)
    type = try container.decodeIfPresent(SettingType.self, forKey: .type)
    description = try container.decodeIfPresent(String.self, forKey: .description) ?? ""
  }
}

/// The values a setting the person may change takes, and the one it holds
/// until the person sets one (ViperKit 3.1). Its value reads as an
/// ``ArgumentValue`` of the same kind: `.bool`, `.int` or `.string`.
public enum SettingType: Hashable, Sendable {
  /// On or off.
  case bool(default: Bool)
  /// A whole number from the range's lower bound to its upper, both included.
  case int(default: Int, in: ClosedRange<Int>)
  /// Any text.
  case string(default: String)
  /// One of `choices`, each a string, in the order the person sees them.
  case choice(default: String, among: [String])

  /// The value the setting holds until the person sets one.
  public var defaultValue: ArgumentValue {
    switch self {
    case .bool(let value): .bool(value)
    case .int(let value, _): .int(value)
    case .string(let value): .string(value)
    case .choice(let value, _): .string(value)
    }
  }
}

extension SettingType: Codable {
  private enum CodingKeys: String, CodingKey {
    case kind, defaultValue = "default", lowest, highest, choices
  }

  private enum Kind: String, Codable {
    case bool, int, string, choice
  }

  /// Encodes as `{"kind": "int", "default": 5, "lowest": 1, "highest": 10}`,
  /// and as `{"kind": "choice", "default": "a", "choices": ["a", "b"]}`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .bool(let value):
      try container.encode(Kind.bool, forKey: .kind)
      try container.encode(value, forKey: .defaultValue)
    case .int(let value, let range):
      try container.encode(Kind.int, forKey: .kind)
      try container.encode(value, forKey: .defaultValue)
      try container.encode(range.lowerBound, forKey: .lowest)
      try container.encode(range.upperBound, forKey: .highest)
    case .string(let value):
      try container.encode(Kind.string, forKey: .kind)
      try container.encode(value, forKey: .defaultValue)
    case .choice(let value, let choices):
      try container.encode(Kind.choice, forKey: .kind)
      try container.encode(value, forKey: .defaultValue)
      try container.encode(choices, forKey: .choices)
    }
  }

  /// Decodes what ``encode(to:)`` writes; a range whose lowest is above
  /// its highest is refused.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    switch try container.decode(Kind.self, forKey: .kind) {
    case .bool: self = .bool(default: try container.decode(Bool.self, forKey: .defaultValue))
    case .int:
      let lowest = try container.decode(Int.self, forKey: .lowest)
      let highest = try container.decode(Int.self, forKey: .highest)
      guard lowest <= highest else {
        throw DecodingError.dataCorruptedError(
          forKey: .highest, in: container,
          debugDescription: "the range's highest, \(highest), is below its lowest, \(lowest)")
      }
      self = .int(default: try container.decode(Int.self, forKey: .defaultValue), in: lowest...highest)
    case .string: self = .string(default: try container.decode(String.self, forKey: .defaultValue))
    case .choice:
      self = .choice(
        default: try container.decode(String.self, forKey: .defaultValue),
        among: try container.decode([String].self, forKey: .choices))
    }
  }
}
