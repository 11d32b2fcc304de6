extension ParsedURN {
  /// The length in bytes of the path of `text` (what comes before `?`), if
  /// `text` is a valid URN whose path is written plainly: every segment its
  /// own decoded text, nothing percent-encoded. Checks the whole text as
  /// ``init(parsing:)`` does (the query too), reading its bytes and making
  /// nothing, so that a router can walk the path's bytes as they are.
  ///
  /// Nil for any other text, valid or not: ``init(parsing:)`` then parses it
  /// and says what is wrong, if anything.
  public static func plainPathLength(of text: String) -> Int? {
    let bytes = text.utf8.span
    guard bytes.count <= maximumLength else { return nil }
    let (unreserved, nameBytes) = (URNSyntax.unreserved, URNSyntax.nameBytes)
    // The path, read without checking each index: it is the loop's bound.
    let path: Int? = bytes.withUnsafeBufferPointer { buffer in
      var end = 0
      var segmentStart = 0
      while end < buffer.count, buffer[end] != UInt8(ascii: "?") {
        if buffer[end] == UInt8(ascii: ":") {
          guard end > segmentStart else { return nil }
          segmentStart = end + 1
        } else if !unreserved.contains(buffer[end]) {
          // '%' too: the path is not plain.
          return nil
        }
        end += 1
      }
      return end > segmentStart ? end : nil
    }
    guard let end = path else { return nil }
    guard end < bytes.count else { return end }
    var param = end + 1
    while true {
      guard let equals = URNSyntax.nameEnd(in: bytes, from: param, nameBytes),
        !URNSyntax.hasParameter(named: bytes.extracting(param..<equals), before: param, in: bytes, from: end + 1)
      else { return nil }
      var stop = equals + 1
      while stop < bytes.count, bytes[stop] != UInt8(ascii: "&") { stop += 1 }
      guard URNSyntax.decodesToUTF8(bytes.extracting((equals + 1)..<stop), unreserved) else { return nil }
      if stop == bytes.count { return end }
      param = stop + 1
    }
  }
}

extension URNSyntax {
  /// Where the `=` after the query parameter's name at `param` is, if it
  /// starts with a name (``nameBytes``, not starting with a digit) and `=`.
  static func nameEnd(in bytes: Span<UInt8>, from param: Int, _ nameBytes: ByteSet) -> Int? {
    var equals = param
    while equals < bytes.count, nameBytes.contains(bytes[equals]) { equals += 1 }
    guard equals > param, equals < bytes.count, bytes[equals] == UInt8(ascii: "="),
      !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[param])
    else { return nil }
    return equals
  }

  /// Whether a query parameter of `bytes` from `start` up to `end` is named
  /// `name`; the parameters there are already known to be `name=value`.
  static func hasParameter(named name: Span<UInt8>, before end: Int, in bytes: Span<UInt8>, from start: Int) -> Bool {
    var param = start
    while param < end {
      var index = 0
      while index < name.count, bytes[param + index] == name[index] { index += 1 }
      if index == name.count, bytes[param + index] == UInt8(ascii: "=") { return true }
      while bytes[param] != UInt8(ascii: "&") { param += 1 }
      param += 1
    }
    return false
  }

  /// Whether `raw`, unreserved bytes and `%XX` escapes, decodes to valid
  /// UTF-8 (as `String(validating:)` reads it: no overlong form, no
  /// surrogate, nothing past U+10FFFF), checked byte by byte as decoded.
  static func decodesToUTF8(_ raw: Span<UInt8>, _ unreserved: ByteSet) -> Bool {
    var needed = 0
    var lowest: UInt8 = 0x80
    var highest: UInt8 = 0xBF
    var index = 0
    while index < raw.count {
      var byte = raw[index]
      if byte == UInt8(ascii: "%") {
        guard index + 2 < raw.count, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else {
          return false
        }
        byte = high << 4 | low
        index += 3
      } else {
        guard unreserved.contains(byte) else { return false }
        index += 1
      }
      if needed > 0 {
        guard (lowest...highest).contains(byte) else { return false }
        (needed, lowest, highest) = (needed - 1, 0x80, 0xBF)
        continue
      }
      switch byte {
      case 0x00...0x7F: break
      case 0xC2...0xDF: needed = 1
      case 0xE0: (needed, lowest) = (2, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: needed = 2
      case 0xED: (needed, highest) = (2, 0x9F)
      case 0xF0: (needed, lowest) = (3, 0x90)
      case 0xF1...0xF3: needed = 3
      case 0xF4: (needed, highest) = (3, 0x8F)
      default: return false
      }
    }
    return needed == 0
  }
}
