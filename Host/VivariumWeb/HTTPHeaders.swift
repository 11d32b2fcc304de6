/// A request's header fields, in the order they came, looked up by name
/// case-insensitively (field names are ASCII tokens, RFC 9110 §5.1).
package struct HTTPHeaders: Sendable, Equatable, Sequence {
  /// One field line: its name as sent and its value with the whitespace
  /// around it removed.
  package struct Field: Sendable, Equatable {
    /// The name, as the client wrote it.
    package let name: String
    /// The value, without leading or trailing spaces and tabs.
    package let value: String

    /// A field of `name` and `value`.
    package init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Every field, in order.
  package private(set) var fields: [Field] = []

  /// No fields.
  package init() {}

  /// `fields`, in order.
  package init(_ fields: [(String, String)]) {
    self.fields = fields.map { Field(name: $0.0, value: $0.1) }
  }

  /// Adds a field after the others.
  package mutating func append(name: String, value: String) {
    fields.append(Field(name: name, value: value))
  }

  /// The fields in order.
  package func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

  /// How many fields there are.
  package var count: Int { fields.count }

  /// The value of the first field named `name`, whatever its case, or nil.
  package subscript(_ name: String) -> String? {
    fields.first { Self.sameName($0.name, name) }?.value
  }

  /// The values of every field named `name`, in order.
  package func values(_ name: String) -> [String] {
    fields.filter { Self.sameName($0.name, name) }.map(\.value)
  }

  /// The elements of the comma-separated lists in every field named
  /// `name` (RFC 9110 §5.6.1), without the whitespace around them, empty
  /// ones left out.
  package func listElements(_ name: String) -> [Substring] {
    values(name).flatMap { value in
      value.split(separator: ",").map(\.withoutOptionalWhitespace).filter { !$0.isEmpty }
    }
  }

  /// Whether a list in a field named `name` holds `token`, whatever its
  /// case: `Connection: keep-alive, Upgrade` holds `upgrade`.
  package func containsToken(_ token: String, in name: String) -> Bool {
    listElements(name).contains { Self.sameName(String($0), token) }
  }

  /// Whether two ASCII names are the same but for case.
  package static func sameName(_ a: String, _ b: String) -> Bool {
    a.utf8.elementsEqual(b.utf8) { lowercased($0) == lowercased($1) }
  }

  /// `byte` with A–Z made a–z.
  static func lowercased(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
  }
}

extension Substring {
  /// This text without the spaces and tabs at its ends (RFC 9110's OWS).
  fileprivate var withoutOptionalWhitespace: Substring {
    var text = self
    while text.first == " " || text.first == "\t" { text.removeFirst() }
    while text.last == " " || text.last == "\t" { text.removeLast() }
    return text
  }
}
