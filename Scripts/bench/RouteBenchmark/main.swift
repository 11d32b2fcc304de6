// Prints how long resolving a URN from its string takes as the route table
// grows, as the host does it for a deep link or `open`:
//  - route: the text checked as a URN and looked up in the table
//    (RouteTable.resolve(text:), the first step of PluginCatalog.resolve):
//    the entry it matches, its arguments read only when asked for (checked
//    below, before anything is timed);
//  - + arguments: all of PluginCatalog.resolve, which then reads the
//    placeholders and the query the route takes, checks them against the
//    contract and fills in defaults;
//  - floor: a Dictionary<String, Int> lookup of the same string, whole;
//  - + arguments floor: that lookup, then the same [String: ArgumentValue]
//    as + arguments gives, built from the URN's parts: each value read from
//    its place in the text (known in advance) as its type, the defaults
//    added (a percent-encoded value is read as it is written, not decoded).
//
// Honest by construction: every lookup is a distinct URN (as many as there are
// patterns, one per pattern, cycled until a round has made 10,000 lookups),
// taken in a random order (a seeded xorshift64*, reshuffled each round), so the
// caches are as warm as the table's size lets them be, no warmer. Each figure
// is the median of 7 rounds, with the min–max beside it, after a round to
// warm up.
// Built and run by Scripts/benchmark (VIVARIUM_BENCHMARK=1 adds this target to
// Package.swift; the debug build and `swift test` never compile it). Pattern
// counts given as arguments replace the usual ones.
import Foundation
import ViperKit
import ViperKitHosting
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumTools

/// A seeded generator (Marsaglia's xorshift, Vigna's xorshift64* output):
/// the same patterns and order on every run.
struct Xorshift64Star: RandomNumberGenerator {
  /// Never zero.
  var state: UInt64

  mutating func next() -> UInt64 {
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    return state &* 0x2545_F491_4F6C_DD1D
  }
}

/// A factory for a contract made at run time; nothing is built.
struct BenchFactory: ModuleFactory {
  static var contract: Contract { Contract(urn: "bench:unused", summary: "Each instance has its own contract.") }
  let contract: Contract

  func build(_ context: ModuleContext) throws -> Module { throw ModuleBuildError("the benchmark builds nothing") }
}

/// Four patterns per namespace, each namespace a plugin of its own, literal
/// routes and placeholders mixed, and one URN for each: `ns{n}:list`,
/// `ns{n}:screen:{id}`, `ns{n}:screen:{id}:tab:settings` and
/// `ns{n}:user:{userID}:post:{postID}`. Every contract also takes the optional
/// `compact` (bool) and `q` (string); a quarter of the URNs give one of them
/// as a `?name=value` query, one in sixteen percent-encoded.
func workload(patterns count: Int, random: inout Xorshift64Star) -> (PluginCatalog, [(text: String, pattern: String)]) {
  let optional: [ArgumentSpec] = [
    .optional("compact", .bool, default: .bool(false), "Fewer lines."),
    .optional("q", .string, default: .string(""), "A search."),
  ]
  var plugins: [PluginOutcome] = []
  var factories: [any ModuleFactory] = []
  var urns: [(text: String, pattern: String)] = []
  for index in 0..<count {
    let namespace = "ns\(index / 4)"
    let id = random.next() % 100_000
    let (pattern, arguments): (String, [ArgumentSpec])
    var urn: String
    switch index % 4 {
    case 0:
      (pattern, arguments, urn) = ("\(namespace):list", [], "\(namespace):list")
    case 1:
      (pattern, arguments, urn) = (
        "\(namespace):screen:{id}", [.required("id", .int, "Which.")], "\(namespace):screen:\(id)"
      )
    case 2:
      (pattern, arguments, urn) = (
        "\(namespace):screen:{id}:tab:settings", [.required("id", .int, "Which.")],
        "\(namespace):screen:\(id):tab:settings"
      )
    default:
      (pattern, arguments, urn) = (
        "\(namespace):user:{userID}:post:{postID}",
        [.required("userID", .string, "Whose."), .required("postID", .int, "Which.")],
        "\(namespace):user:u\(id):post:\(index)"
      )
    }
    switch random.next() % 16 {
    case 0: urn += "?q=red%20shoes"
    case 1, 2, 3: urn += "?compact=true"
    default: break
    }
    factories.append(
      BenchFactory(contract: Contract(urn: pattern, summary: "A screen.", arguments: arguments + optional)))
    urns.append((urn, pattern))
    if factories.count == 4 || index == count - 1 {
      let name = "Plugin\(index / 4)"
      plugins.append(.loaded(LoadedPlugin(path: "/plugins/lib\(name).so", name: name, factories: factories)))
      factories = []
    }
  }
  return (PluginCatalog(outcomes: plugins), urns)
}

/// `lookups` strings from `urns`, each taken in turn, in a random order.
func shuffled(_ urns: [String], lookups: Int, random: inout Xorshift64Star) -> [String] {
  var order: [String] = []
  order.reserveCapacity(lookups)
  while order.count < lookups { order += urns.shuffled(using: &random) }
  return Array(order.prefix(lookups))
}

/// Nanoseconds per lookup of `body` over `order`; `body` returns a checksum
/// so the work cannot be optimised away.
@inline(never)
func time(_ order: [String], _ body: (String) -> Int) -> (ns: Double, sum: Int) {
  var sum = 0
  let start = DispatchTime.now().uptimeNanoseconds
  for text in order { sum &+= body(text) }
  let elapsed = DispatchTime.now().uptimeNanoseconds - start
  return (Double(elapsed) / Double(order.count), sum)
}

/// Median and range of `values`.
func summary(_ values: [Double]) -> (median: Double, min: Double, max: Double) {
  let sorted = values.sorted()
  return (sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

/// `median (min–max)`, right-aligned in a column `width` wide.
func format(_ value: (median: Double, min: Double, max: Double), width: Int) -> String {
  let text = String(format: "%.0f (%.0f–%.0f)", value.median, value.min, value.max)
  return String(repeating: " ", count: max(0, width - text.count)) + text
}

/// Routes `text` (RouteTable.resolve(text:)): the number of the entry it
/// found, or -1. Its placeholders are bound only when asked for, which
/// + arguments does.
@inline(never)
func route(_ text: String, in table: RouteTable<Route>) -> Int {
  guard case .matched(let routed)? = try? table.resolve(text: text) else { return -1 }
  return routed.entry
}

/// A value's place in a URN's text (UTF-8 offsets) and its type, or, for
/// an argument the URN does not give, its default.
struct ArgumentPart {
  let name: String
  let type: ArgumentType
  let place: Range<Int>?
  let value: ArgumentValue?
}

/// The parts of `text`, resolved to `module`: where each of its arguments is
/// in the text, found once before anything is timed.
func parts(of text: String, resolved module: ResolvedModule) -> [ArgumentPart] {
  let bytes = Array(text.utf8)
  let queryStart = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
  var segmentPlaces: [Range<Int>] = []
  var start = 0
  for (offset, byte) in bytes[..<queryStart].enumerated() where byte == UInt8(ascii: ":") {
    segmentPlaces.append(start..<offset)
    start = offset + 1
  }
  segmentPlaces.append(start..<queryStart)
  var queryPlaces: [String: Range<Int>] = [:]
  if queryStart < bytes.count {
    for pair in bytes[(queryStart + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
      let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
      // Slices keep the whole text's offsets.
      queryPlaces[String(decoding: pair[..<equals], as: UTF8.self)] = (equals + 1)..<pair.endIndex
    }
  }
  return module.route.contract.arguments.map { spec in
    let placeholder = module.route.pattern.segments.firstIndex(of: .placeholder(spec.name))
    let place = placeholder.map { segmentPlaces[$0] } ?? queryPlaces[spec.name]
    return ArgumentPart(
      name: spec.name, type: spec.type, place: place, value: place == nil ? module.arguments.values[spec.name] : nil)
  }
}

/// The floor of + arguments: looks `text` up whole, then builds its
/// arguments from its parts; a checksum, or -1.
@inline(never)
func argumentsFloor(_ text: String, in index: [String: Int], parts: [[ArgumentPart]]) -> Int {
  guard let number = index[text] else { return -1 }
  let utf8 = text.utf8
  var values: [String: ArgumentValue] = .init(minimumCapacity: parts[number].count)
  for part in parts[number] {
    if let place = part.place {
      let from = utf8.index(utf8.startIndex, offsetBy: place.lowerBound)
      let to = utf8.index(from, offsetBy: place.count)
      guard let value = ArgumentValue(parsing: String(Substring(utf8[from..<to])), as: part.type) else { return -1 }
      values[part.name] = value
    } else {
      values[part.name] = part.value
    }
  }
  return values.count &+ number
}

/// Resolves `text` as the host does before it builds a module: a checksum of
/// what it found, or -1.
@inline(never)
func resolve(_ text: String, in catalog: PluginCatalog) -> Int {
  guard let module = try? catalog.resolve(text) else { return -1 }
  return module.arguments.values.count &+ module.urn.utf8.count
}

let rounds = 7
let minimumLookups = 10_000
var random = Xorshift64Star(state: 0x5EED)
print(
  "ns per URN, median (min–max) of \(rounds) rounds over distinct URNs in a random order, ≥ \(minimumLookups) lookups a round"
)
print("targets (issue 27): route ≤ 3× floor; + arguments ≤ 3× its floor (lookup and the same arguments built)")
print()
print(
  "patterns  lookups             route           floor   route/floor       + arguments  + arguments floor  ratio")
let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
for count in counts.isEmpty ? [100, 1_000, 10_000, 100_000] : counts {
  let (catalog, urns) = workload(patterns: count, random: &random)
  let floor = Dictionary(uniqueKeysWithValues: urns.enumerated().map { ($1.text, $0) })
  var argumentParts: [[ArgumentPart]] = []
  // Every URN resolves to its own pattern, arguments bound, and its floor
  // builds the same arguments, before anything is timed.
  for (index, urn) in urns.enumerated() {
    let module = try? catalog.resolve(urn.text)
    guard let module, module.route.pattern.text == urn.pattern, module.arguments.values.count >= 2,
      route(urn.text, in: catalog.table) >= 0, floor[urn.text] == index,
      case .matched(let routed)? = try? catalog.table.resolve(text: urn.text),
      catalog.table.entries[routed.entry].pattern.text == urn.pattern,
      catalog.table.bindings(of: routed) == (try? ParsedURN(parsing: module.urn)).flatMap(module.route.pattern.match)
    else {
      print("error: \(urn.text) does not resolve to \(urn.pattern)")
      exit(1)
    }
    argumentParts.append(parts(of: urn.text, resolved: module))
    guard argumentsFloor(urn.text, in: floor, parts: argumentParts) == module.arguments.values.count &+ index else {
      print("error: the floor of \(urn.text) does not build its \(module.arguments.values.count) arguments")
      exit(1)
    }
  }
  let texts = urns.map(\.text)
  let lookups = max(count, minimumLookups)
  var figures: [[Double]] = Array(repeating: [], count: 4)
  var checksum = 0
  // One round more than is kept: the first, untimed in effect, warms up
  // the processor and the allocator.
  for round in 0...rounds {
    let order = shuffled(texts, lookups: lookups, random: &random)
    let table = catalog.table
    let times = [
      time(order) { route($0, in: table) }, time(order) { floor[$0] ?? -1 },
      time(order) { resolve($0, in: catalog) }, time(order) { argumentsFloor($0, in: floor, parts: argumentParts) },
    ]
    checksum &+= times.reduce(0) { $0 &+ $1.sum }
    guard round > 0 else { continue }
    for (column, figure) in times.enumerated() { figures[column].append(figure.ns) }
  }
  let (routeTime, floorTime, resolveTime, argumentsFloorTime) =
    (summary(figures[0]), summary(figures[1]), summary(figures[2]), summary(figures[3]))
  print(
    String(format: "%8d %8d", count, lookups), format(routeTime, width: 17), format(floorTime, width: 15),
    String(format: "%12.1f×", routeTime.median / floorTime.median), format(resolveTime, width: 17),
    format(argumentsFloorTime, width: 18), String(format: "%6.1f×", resolveTime.median / argumentsFloorTime.median),
    checksum == 0 ? "(nothing resolved?)" : "")
}
