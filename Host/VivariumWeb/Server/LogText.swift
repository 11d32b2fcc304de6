/// Text made safe for a log line: what a client sent never reaches the
/// log as it is.
enum LogText {
  /// `text` with every control character (C0, DEL, C1), every invisible
  /// format character (bidirectional overrides and the like), every line
  /// or paragraph separator and every backslash written as an escape
  /// (`\n`, `\u{1B}`), cut to `limit` characters with `…` when longer.
  static func escaped(_ text: some StringProtocol, limit: Int = 200) -> String {
    var result = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count >= limit {
        result += "…"
        break
      }
      count += 1
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case "\\": result += "\\\\"
      case _ where Self.isHidden(scalar):
        result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether `scalar` could hide or rearrange text on a terminal.
  private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
    default: false
    }
  }
}
