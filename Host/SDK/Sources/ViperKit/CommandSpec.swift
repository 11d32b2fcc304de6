/// A command a module offers the person while it is shown (ViperKit 3.1),
/// declared in the module's ``Contract/commands``: the host lists it in
/// the app's `:` command line and keys help (`?`), and runs it when the
/// person types its ``id`` there or presses its ``key``. The module
/// receives it as ``ViewEvent/command(id:)``.
///
/// ```swift
/// commands: [CommandSpec("refresh", title: "Refresh the list", key: CommandKey("r"))]
/// ```
///
/// A command applies where its module is shown: on each screen showing
/// the module, itself or embedded in a shown tab or slot.
public struct CommandSpec: Codable, Hashable, Sendable {
  /// What the person types on the command line, and the module receives:
  /// a name (letters, digits and `_`, not starting with a digit), unique
  /// in the contract.
  public var id: String
  /// What the command does, in a few words, for the keys help.
  public var title: String
  /// The key that runs it outside a field, if any.
  public var key: CommandKey?

  /// Declares the command `id`, described by `title`, run by `key` when
  /// one is given.
  public init(_ id: String, title: String, key: CommandKey? = nil) {
    self.id = id
    self.title = title
    self.key = key
  }
}

/// A key that runs a ``CommandSpec`` (ViperKit 3.1): one printable
/// character, or Ctrl and a letter.
///
/// A key the host takes for itself (`q`, `?`, `:`, Ctrl-C, Ctrl-P…) or an
/// earlier command on the same screen takes does not run the command; the
/// keys help shows it as conflicting, and `vivarium check --app` reports it.
public struct CommandKey: Codable, Hashable, Sendable, CustomStringConvertible {
  /// The key as written: the character (`r`, `+`), or `Ctrl-` and the
  /// letter in capitals (`Ctrl-R`).
  public let name: String

  /// The key that types `character` (`CommandKey("r")`): a letter, digit
  /// or sign, not a space or a control character. `r` and `R` are
  /// different keys.
  public init(_ character: Character) {
    name = String(character)
  }

  /// Ctrl held with `letter`, `a` to `z` (`.ctrl("r")`, written `Ctrl-R`).
  public static func ctrl(_ letter: Character) -> CommandKey {
    CommandKey(name: "Ctrl-" + letter.uppercased())
  }

  private init(name: String) {
    self.name = name
  }

  /// ``name``.
  public var description: String { name }

  /// Decodes the key from its ``name``; the contract checks say whether
  /// it is one.
  public init(from decoder: any Decoder) throws {
    name = try decoder.singleValueContainer().decode(String.self)
  }

  /// Encodes the key as its ``name``.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(name)
  }
}
