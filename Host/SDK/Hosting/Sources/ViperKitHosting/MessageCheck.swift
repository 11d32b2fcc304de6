import ViperKit

/// Checks a message's fields against its declaration.
public enum MessageCheck {
  /// Nil when `message` carries exactly the declared fields with their types.
  public static func problem(_ message: Message, _ spec: MessageSpec) -> String? {
    for (name, type) in spec.fields.sorted(by: { $0.key < $1.key }) {
      guard let value = message.fields[name] else {
        return "'\(message.name)' lacks its declared field '\(name)' (\(type))"
      }
      if value.type != type {
        return "'\(message.name)' field '\(name)' must be \(type), got \(value.type) \(value)"
      }
    }
    if let extra = message.fields.keys.sorted().first(where: { spec.fields[$0] == nil }) {
      return "'\(message.name)' has the undeclared field '\(extra)'"
    }
    return nil
  }
}
