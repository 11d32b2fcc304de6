/// A URN built from values, percent-encoded so that any text fits:
/// `URN("weather", "city", "São Paulo")` is `weather:city:S%C3%A3o%20Paulo`.
///
/// Routers build the URNs they navigate to with it instead of interpolating
/// strings, so a value holding `:`, `?`, `&`, `/` or a space cannot change
/// which module opens or with which arguments:
///
/// ```swift
/// appRouter.push(URN("items", "detail", item.id))
/// appRouter.replace(URN("dashboard", "home").query("user", user))
/// ```
public struct URN: Hashable, Sendable, CustomStringConvertible {
  /// The encoded text the host parses, for example `items:detail:7`.
  public let text: String

  /// A URN of `segments`, each percent-encoded; the first names the
  /// namespace. A segment must not be empty (the host refuses the URN,
  /// naming it).
  public init(_ segments: any LosslessStringConvertible...) {
    text = segments.map { URN.encode($0.description) }.joined(separator: ":")
  }

  private init(text: String) {
    self.text = text
  }

  /// This URN with the argument `name` set to `value` in its query
  /// (`?name=value`, then `&…`); the value is percent-encoded. `name` must be
  /// an argument the contract declares.
  public func query(_ name: String, _ value: any LosslessStringConvertible) -> URN {
    URN(text: text + (text.contains("?") ? "&" : "?") + URN.encode(name) + "=" + URN.encode(value.description))
  }

  /// The encoded text.
  public var description: String { text }

  /// Whether `byte` stands for itself in a URN (an ASCII letter or digit, or
  /// one of `-._~`); every other byte is written `%XX`.
  public static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      true
    default: false
    }
  }

  /// `value` with every byte of its UTF-8 that is not unreserved written as
  /// `%XX` (upper-case hex).
  public static func encode(_ value: String) -> String {
    if value.utf8.allSatisfy(isUnreserved) { return value }
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    for byte in value.utf8 {
      if isUnreserved(byte) {
        bytes.append(byte)
      } else {
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
