import ViperKit

/// Argument and message values the checks build modules with.
enum SampleValues {
  /// The minimal valid arguments: defaults, else the first choice, else a
  /// sample of the declared type.
  static func arguments(_ contract: Contract) -> [String: ArgumentValue] {
    var values: [String: ArgumentValue] = [:]
    for spec in contract.arguments {
      values[spec.name] = spec.defaultValue ?? spec.choices.first ?? value(spec.type)
    }
    return values
  }

  /// A value of `type`.
  static func value(_ type: ArgumentType) -> ArgumentValue {
    switch type {
    case .string: .string("sample")
    case .int: .int(1)
    case .bool: .bool(true)
    case .double: .double(1.5)
    @unknown default: .string("sample")
    }
  }

  /// A value of another type than `type`.
  static func wrong(_ type: ArgumentType) -> ArgumentValue {
    type == .string ? .int(7) : .string("not-a-\(type)")
  }

  /// `spec` as a message with sample fields.
  static func message(_ spec: MessageSpec) -> Message {
    Message(spec.name, spec.fields.mapValues(value))
  }

  /// Texts to type into a field: a plain one, and from strictness 6 a
  /// repeatable pseudo-random mix of empty, long, non-ASCII and control text.
  static func texts(strictness: Int, seed: String) -> [String] {
    var texts = ["sample text"]
    guard strictness >= 6 else { return texts }
    texts += ["", String(repeating: "x", count: 10_000), "ü日本語🙂", "\u{0}\n\t\u{1B}[31m", "%{}:/?#&=", "-1", "1e309"]
    var generator = SplitMix64(seed: seed.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) })
    let alphabet = Array("aZ09 _-:/{}%é日🙂\n\u{0}")
    for _ in 0..<(strictness * 2) {
      let count = Int(generator.next() % 64)
      texts.append(String((0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
    }
    return texts
  }
}

/// A small deterministic random generator, so fuzzed runs repeat exactly.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
