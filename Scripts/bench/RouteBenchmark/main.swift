// Prints how long resolving a URN from its string takes as the route table
// grows, as the host does it for a deep link or `open`:
//  - route: the text parsed (ParsedURN) and looked up in the table
//    (RouteTable.resolve), placeholders bound;
//  - + arguments: all of PluginCatalog.resolve, which also checks the
//    placeholders and the query against the contract and fills in defaults;
//  - floor: a Dictionary<String, Int> lookup of the same string, whole.
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
import VivariumHost

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

/// Parses `text` and routes it: a checksum of what it found, or -1.
@inline(never)
func route(_ text: String, in table: RouteTable<Route>) -> Int {
  guard let urn = try? ParsedURN(parsing: text), case .matched(_, let bindings) = table.resolve(urn) else {
    return -1
  }
  return bindings.count &+ urn.segments.count
}

/// Resolves `text` as the host does before it builds a module: a checksum of
/// what it found, or -1.
@inline(never)
func resolve(_ text: String, in catalog: PluginCatalog) -> Int {
  guard let module = try? catalog.resolve(text) else { return -1 }
  return module.arguments.values.count &+ module.urn.segments.count
}

let rounds = 7
let minimumLookups = 10_000
var random = Xorshift64Star(state: 0x5EED)
var growth: [Int: (route: Double, arguments: Double)] = [:]
print(
  "ns per URN, median (min–max) of \(rounds) rounds over distinct URNs in a random order, ≥ \(minimumLookups) lookups a round"
)
print()
print("patterns  lookups             route       + arguments          floor   route/floor  + arguments/floor")
let counts = CommandLine.arguments.dropFirst().compactMap { Int($0) }
for count in counts.isEmpty ? [100, 1_000, 10_000, 100_000] : counts {
  let (catalog, urns) = workload(patterns: count, random: &random)
  let floor = Dictionary(uniqueKeysWithValues: urns.enumerated().map { ($1.text, $0) })
  // Every URN resolves to its own pattern, arguments bound, before anything
  // is timed.
  for (index, urn) in urns.enumerated() {
    let module = try? catalog.resolve(urn.text)
    guard module?.route.pattern.text == urn.pattern, module?.arguments.values.count ?? 0 >= 2,
      route(urn.text, in: catalog.table) > 0, floor[urn.text] == index
    else {
      print("error: \(urn.text) does not resolve to \(urn.pattern)")
      exit(1)
    }
  }
  let texts = urns.map(\.text)
  let lookups = max(count, minimumLookups)
  var (routed, resolved, looked): ([Double], [Double], [Double]) = ([], [], [])
  var checksum = 0
  // One round more than is kept: the first, untimed in effect, warms up
  // the processor and the allocator.
  for round in 0...rounds {
    let order = shuffled(texts, lookups: lookups, random: &random)
    let table = catalog.table
    let times = [
      time(order) { route($0, in: table) }, time(order) { resolve($0, in: catalog) }, time(order) { floor[$0] ?? -1 },
    ]
    checksum &+= times.reduce(0) { $0 &+ $1.sum }
    guard round > 0 else { continue }
    routed.append(times[0].ns)
    resolved.append(times[1].ns)
    looked.append(times[2].ns)
  }
  let (routeTime, resolveTime, floorTime) = (summary(routed), summary(resolved), summary(looked))
  growth[count] = (routeTime.median, resolveTime.median)
  print(
    String(format: "%8d %8d", count, lookups), format(routeTime, width: 17), format(resolveTime, width: 17),
    format(floorTime, width: 14),
    String(format: "%12.1f× %18.1f×", routeTime.median / floorTime.median, resolveTime.median / floorTime.median),
    checksum == 0 ? "(nothing resolved?)" : "")
}
if let small = growth[100], let large = growth[100_000] {
  print(
    String(
      format: "growth from 100 to 100,000 patterns: route %.2f× (%.0f → %.0f ns), + arguments %.2f× (%.0f → %.0f ns)",
      large.route / small.route, small.route, large.route, large.arguments / small.arguments, small.arguments,
      large.arguments))
}
