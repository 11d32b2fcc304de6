import ViperKitHosting

@testable import ViperKitTestKit

/// Generates session lines a person could type, mostly wrong: commands with
/// addresses that have empty parts, dots, slashes, unicode, control bytes,
/// very long words, and deep links of real and broken URNs.
struct SessionLineGrammar {
  /// The test kit's seeded generator, so every run makes the same lines.
  var random: SplitMix64

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  /// Words that mean something on the demo and probe screens.
  private static let known = [
    "tabs", "main", "one", "tab.items", "signIn", "ok", "deleteAll", "items", "results", "query", "next",
    "wallet", "topUp", "favourites", "user", "password", "search", "amounts", "posts", "mask", "toggle",
  ]
  /// Awkward fragments.
  private static let odd = [
    "", ".", "..", "...", "0", ".0", "tabs.", ".tabs", "tabs.0", "tabs.1", "tabs.-1", "main.0", "main.1", "main.2",
    "main.x", "main.0.1", "tabs.99999999999999999999", "é", "🦎", "\u{301}", "e\u{301}", "\u{0}", "\u{7}", "\t", "\r",
    "\u{1B}[31m", "\u{200B}", "\u{FEFF}", "%", "%zz", "{n}", "?", "&", "=", "\"", "'", "#", "\\", "://",
  ]
  private static let letters = Array("abcxyz019.-_/")
  private static let commands = [
    "tap", "select", "type", "open", "back", "dismiss", "ok", "screen", "tree", "routes", "plugins", "log", "help",
    "exit", "quit", "TAP", "tap\t", "", "#", "jump",
  ]
  private static let urns = [
    "probe:parent", "probe:child:1", "probe:child:2", "probe:child:x", "dashboard:home", "dashboard:home?user=ada",
    "items:list", "items:detail:3", "items:detail:-1", "products:search", "feed:home", "wallet:topup",
    "login:form", "profile:7?compact=true", "a:b", "nothing:here", "vivarium-demo://items:list", "x://a",
  ]

  /// A word of `length` characters drawn from letters and the odd fragments.
  private mutating func word(length: Int) -> String {
    var text = ""
    var count = 0
    while count < length {
      let piece = random.chance(80) ? String(random.pick(Self.letters)) : random.pick(Self.odd)
      text += piece
      count += max(piece.unicodeScalars.count, 1)
    }
    return text
  }

  private mutating func part() -> String {
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<4: random.pick(Self.known)
    case 4..<8: random.pick(Self.odd)
    case 8: word(length: Int.random(in: 1...12, using: &random))
    default: random.chance(10) ? word(length: Int.random(in: 500...4_000, using: &random)) : random.pick(Self.known)
    }
  }

  /// An element address: one to four parts joined by slashes (sometimes doubled).
  mutating func address() -> String {
    let count = Int.random(in: 1...4, using: &random)
    var text = part()
    for _ in 1..<count { text += random.pick(["/", "/", "/", "//", ".", "/./"]) + part() }
    if random.chance(5) { text = "/" + text }
    if random.chance(5) { text += "/" }
    return text
  }

  private mutating func link() -> String {
    let count = Int.random(in: 1...4, using: &random)
    return (0..<count).map { _ in random.chance(75) ? random.pick(Self.urns) : part() }.joined(
      separator: random.chance(90) ? "/" : "//")
  }

  /// One line.
  mutating func line() -> String {
    let command = random.pick(Self.commands)
    var words = [command]
    switch command {
    case "tap": words.append(address())
    case "select": words += [address(), random.chance(70) ? String(Int.random(in: -1...5, using: &random)) : part()]
    case "type": words += [address(), part(), part()]
    case "open": words.append(link())
    default: break
    }
    if random.chance(10) { words.append(part()) }
    if random.chance(5) { words.shuffle(using: &random) }
    let spacing = random.chance(90) ? " " : random.pick(["  ", "\t", " \r", "\u{A0}"])
    var text = words.joined(separator: spacing)
    if random.chance(5) { text = " " + text }
    if random.chance(5) { text += random.pick(["\r", " ", "\r\n", "\u{0}"]) }
    return text
  }
}

extension RandomNumberGenerator {
  /// One of `choices`, which must not be empty.
  mutating func pick<Value>(_ choices: [Value]) -> Value {
    choices[Int.random(in: 0..<choices.count, using: &self)]
  }

  /// True with probability `percent` in 100.
  mutating func chance(_ percent: Int) -> Bool {
    Int.random(in: 0..<100, using: &self) < percent
  }
}
