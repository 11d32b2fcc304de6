/// What complete escape sequences mean: the keys, mouse reports and paste
/// markers ``KeyParser`` knows, anything else `.unknown`.
enum EscapeSequence {
  /// What a complete sequence asks for.
  enum Meaning: Equatable {
    /// A key or mouse event.
    case event(KeyEvent)
    /// The start of a bracketed paste (`ESC[200~`).
    case pasteStart
  }

  /// The longest sequence waited for: longer ones are not keys.
  static let longest = 64

  /// The CSI sequence `whole` (`ESC [` parameters final), its parameter
  /// and intermediate bytes `parameters`, ending in `final`.
  static func csi(_ whole: ArraySlice<UInt8>, parameters: ArraySlice<UInt8>, final: UInt8) -> Meaning {
    let unknown = Meaning.event(.unknown(printable(whole)))
    if parameters.first == UInt8(ascii: "<") {
      guard final == UInt8(ascii: "M") || final == UInt8(ascii: "m"),
        let event = mouse(parameters.dropFirst(), released: final == UInt8(ascii: "m"))
      else { return unknown }
      return .event(.mouse(event))
    }
    guard let numbers = numbers(parameters) else { return unknown }
    switch final {
    case UInt8(ascii: "A"): return .event(.up)
    case UInt8(ascii: "B"): return .event(.down)
    case UInt8(ascii: "C"): return .event(.right)
    case UInt8(ascii: "D"): return .event(.left)
    case UInt8(ascii: "H"): return .event(.home)
    case UInt8(ascii: "F"): return .event(.end)
    case UInt8(ascii: "Z"): return .event(.backTab)
    case UInt8(ascii: "~"):
      switch numbers.first ?? nil {
      case 1, 7: return .event(.home)
      case 4, 8: return .event(.end)
      case 3: return .event(.delete)
      case 5: return .event(.pageUp)
      case 6: return .event(.pageDown)
      case 200 where numbers.count == 1: return .pasteStart
      default: return unknown
      }
    default: return unknown
    }
  }

  /// The SS3 sequence `ESC O final` (application cursor keys).
  static func ss3(final: UInt8) -> KeyEvent {
    switch final {
    case UInt8(ascii: "A"): .up
    case UInt8(ascii: "B"): .down
    case UInt8(ascii: "C"): .right
    case UInt8(ascii: "D"): .left
    case UInt8(ascii: "H"): .home
    case UInt8(ascii: "F"): .end
    default: .unknown(printable([0x1B, UInt8(ascii: "O"), final]))
    }
  }

  /// An xterm SGR mouse report's `b;x;y` (1-based x and y): button bits
  /// 0–1 and 6–7, modifiers 4 (Shift), 8 (Alt), 16 (Ctrl), 32 motion.
  static func mouse(_ parameters: ArraySlice<UInt8>, released: Bool) -> MouseEvent? {
    guard let numbers = numbers(parameters), numbers.count == 3, let code = numbers[0], let x = numbers[1],
      let y = numbers[2], code < 256
    else { return nil }
    let low = code & 3
    let kind: MouseEvent.Kind
    switch code & 0xC0 {
    case 0x40 where low == 0: kind = .wheelUp
    case 0x40 where low == 1: kind = .wheelDown
    case 0, 0x80:
      let button = code & 0x80 == 0 ? low : 8 + low
      kind = released ? .release(button: button) : code & 32 != 0 ? .drag(button: button) : .press(button: button)
    default: return nil
    }
    return MouseEvent(
      kind: kind, x: max(x - 1, 0), y: max(y - 1, 0), shift: code & 4 != 0, alt: code & 8 != 0,
      control: code & 16 != 0)
  }

  /// `parameters` as `;`-separated numbers (nil where empty), or nil when
  /// anything but digits and `;` is there. Numbers stop growing at a
  /// million.
  static func numbers(_ parameters: ArraySlice<UInt8>) -> [Int?]? {
    var numbers: [Int?] = [nil]
    for byte in parameters {
      switch byte {
      case UInt8(ascii: ";"): numbers.append(nil)
      case UInt8(ascii: "0")...UInt8(ascii: "9"):
        let digit = Int(byte - UInt8(ascii: "0"))
        numbers[numbers.count - 1] = min((numbers[numbers.count - 1] ?? 0) * 10 + digit, 1_000_000)
      default: return nil
      }
    }
    return parameters.isEmpty ? [] : numbers
  }

  /// `bytes` shown printable: ESC as `\e`, other control and non-ASCII
  /// bytes as `\xHH`.
  static func printable(_ bytes: some Sequence<UInt8>) -> String {
    var text = ""
    for byte in bytes {
      switch byte {
      case 0x1B: text += "\\e"
      case 0x20..<0x7F: text.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        text += "\\x" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    return text
  }
}
