import Glibc
import ViperKit

/// Whether output gets ANSI colour: only on a terminal, never when `NO_COLOR`
/// is set to anything non-empty (no-color.org), never when `TERM=dumb`.
package struct TextStyle: Sendable {
  /// Whether escape codes are written.
  package let colour: Bool

  /// Plain text.
  package static let plain = TextStyle(colour: false)

  /// Every escape sequence a style writes, and nothing else: what
  /// ``TerminalText`` lets through from the host's own renderer.
  package static let sequences: Set<String> = Set(["0", "1", "2", "31", "32", "33", "36"].map { "\u{1B}[\($0)m" })

  /// A style with colour on or off.
  package init(colour: Bool) {
    self.colour = colour
  }

  /// The style for file descriptor `fd` in `environment`; `isTerminal` says
  /// whether a descriptor is a terminal (`isatty` unless a test says otherwise).
  package static func forOutput(
    _ fd: Int32, environment: [String: String], isTerminal: (Int32) -> Bool = { isatty($0) == 1 }
  ) -> TextStyle {
    let noColour = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
    return TextStyle(colour: !noColour && isTerminal(fd))
  }

  /// `text` in bold.
  package func bold(_ text: String) -> String { wrap(text, "1") }

  /// `text` dimmed.
  package func dim(_ text: String) -> String { wrap(text, "2") }

  /// `text` in the colour for `tone`.
  package func tone(_ tone: Tone, _ text: String) -> String {
    switch tone {
    case .normal: text
    case .muted: dim(text)
    case .info: wrap(text, "36")
    case .positive: wrap(text, "32")
    case .warning: wrap(text, "33")
    case .negative: wrap(text, "31")
    @unknown default: text
    }
  }

  private func wrap(_ text: String, _ code: String) -> String {
    colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }
}
