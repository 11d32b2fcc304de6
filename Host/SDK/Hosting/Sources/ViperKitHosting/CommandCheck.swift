import ViperKit

/// The rules for the commands a contract declares (``ViperKit/Contract/commands``):
/// each id a name, declared once, with a title, and each key one the host
/// can read from a keyboard, running one command.
public enum CommandCheck {
  /// Every problem with `contract`'s commands, each saying what to fix;
  /// empty when they are well formed.
  public static func problems(_ contract: Contract) -> [String] {
    let urn = contract.urn
    var problems: [String] = []
    var ids: Set<String> = []
    var keys: [String: String] = [:]
    for command in contract.commands {
      let id = command.id
      if !URNSyntax.isIdentifier(Substring(id)) {
        problems.append(
          "\(urn): command id '\(id)' is not a name (letters, digits and '_', not starting with a digit)")
      } else if !ids.insert(id).inserted {
        problems.append("\(urn): command '\(id)' is declared twice")
      }
      if command.title.allSatisfy(\.isWhitespace) {
        problems.append("\(urn): command '\(id)' has no title; give it a few words saying what it does")
      }
      guard let key = command.key else { continue }
      if self.key(named: key.name) == nil {
        problems.append(
          "\(urn): command '\(id)' has the key '\(key.name)', which is not one key; give one printable character, CommandKey(\"r\"), or Ctrl and a letter, .ctrl(\"r\")"
        )
      } else if let first = keys[key.name] {
        problems.append("\(urn): commands '\(first)' and '\(id)' both have the key \(key.name); give each its own")
      } else {
        keys[key.name] = id
      }
    }
    return problems
  }

  /// The key `name` writes, as ``ViperKit/CommandKey/name`` writes it: one
  /// printable character (not a space or a control character), or `Ctrl-`
  /// and a letter in capitals; nil for anything else.
  public static func key(named name: String) -> CommandKey? {
    if name.count == 1, let character = name.first, !character.isWhitespace,
      !character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    {
      return CommandKey(character)
    }
    guard name.hasPrefix(controlPrefix), name.count == controlPrefix.count + 1, let letter = name.last,
      letter.isASCII, letter.isUppercase
    else { return nil }
    return .ctrl(letter)
  }

  /// How a key held with Ctrl is written: `Ctrl-R`.
  public static let controlPrefix = "Ctrl-"
}
