/// JSON form: an object with a `kind` field (`text`, `heading`, `list`,
/// `button`, `field`, `secretField`, `stack`, `slot`, `notice`) and that
/// kind's fields. A `secretField` has `length`, never a value.
extension ViewNode: Codable {
  private enum Key: String, CodingKey {
    case kind, text, tone, id, rows, title, label, value, length, placeholder, axis, children, name
  }

  /// Decodes the `kind`-tagged JSON form.
  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: Key.self)
    let kind = try c.decode(String.self, forKey: .kind)
    switch kind {
    case "text":
      self = .text(
        try c.decode(String.self, forKey: .text),
        tone: try c.decodeIfPresent(Tone.self, forKey: .tone) ?? .normal)
    case "heading": self = .heading(try c.decode(String.self, forKey: .text))
    case "list":
      self = .list(id: try c.decode(String.self, forKey: .id), rows: try c.decode([ListRow].self, forKey: .rows))
    case "button":
      self = .button(id: try c.decode(String.self, forKey: .id), title: try c.decode(String.self, forKey: .title))
    case "field":
      self = .field(
        id: try c.decode(String.self, forKey: .id), label: try c.decode(String.self, forKey: .label),
        value: try c.decode(String.self, forKey: .value),
        placeholder: try c.decodeIfPresent(String.self, forKey: .placeholder) ?? "")
    case "secretField":
      self = .secretField(
        id: try c.decode(String.self, forKey: .id), label: try c.decode(String.self, forKey: .label),
        length: try Self.length(c),
        placeholder: try c.decodeIfPresent(String.self, forKey: .placeholder) ?? "")
    case "stack":
      self = .stack(try c.decode(Axis.self, forKey: .axis), try c.decode([ViewNode].self, forKey: .children))
    case "slot": self = .slot(try c.decode(String.self, forKey: .name))
    case "notice":
      self = .notice(try c.decode(Tone.self, forKey: .tone), try c.decode(String.self, forKey: .text))
    default:
      throw DecodingError.dataCorruptedError(
        forKey: .kind, in: c, debugDescription: "unknown view node kind '\(kind)'")
    }
  }

  /// A secret field's `length`: how many characters were typed, never negative.
  private static func length(_ c: KeyedDecodingContainer<Key>) throws -> Int {
    let length = try c.decode(Int.self, forKey: .length)
    guard length >= 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .length, in: c, debugDescription: "a secret field's length is a count of characters, not \(length)")
    }
    return length
  }

  /// Encodes the `kind`-tagged JSON form.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    switch self {
    case .text(let text, let tone):
      try c.encode("text", forKey: .kind)
      try c.encode(text, forKey: .text)
      try c.encode(tone, forKey: .tone)
    case .heading(let text):
      try c.encode("heading", forKey: .kind)
      try c.encode(text, forKey: .text)
    case .list(let id, let rows):
      try c.encode("list", forKey: .kind)
      try c.encode(id, forKey: .id)
      try c.encode(rows, forKey: .rows)
    case .button(let id, let title):
      try c.encode("button", forKey: .kind)
      try c.encode(id, forKey: .id)
      try c.encode(title, forKey: .title)
    case .field(let id, let label, let value, let placeholder):
      try c.encode("field", forKey: .kind)
      try c.encode(id, forKey: .id)
      try c.encode(label, forKey: .label)
      try c.encode(value, forKey: .value)
      try c.encode(placeholder, forKey: .placeholder)
    case .secretField(let id, let label, let length, let placeholder):
      try c.encode("secretField", forKey: .kind)
      try c.encode(id, forKey: .id)
      try c.encode(label, forKey: .label)
      try c.encode(length, forKey: .length)
      try c.encode(placeholder, forKey: .placeholder)
    case .stack(let axis, let children):
      try c.encode("stack", forKey: .kind)
      try c.encode(axis, forKey: .axis)
      try c.encode(children, forKey: .children)
    case .slot(let name):
      try c.encode("slot", forKey: .kind)
      try c.encode(name, forKey: .name)
    case .notice(let tone, let text):
      try c.encode("notice", forKey: .kind)
      try c.encode(tone, forKey: .tone)
      try c.encode(text, forKey: .text)
    }
  }
}
