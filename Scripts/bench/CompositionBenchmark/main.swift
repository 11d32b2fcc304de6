// Prints how long composing N modules takes, in a release build: built,
// attached, drawn as text and torn down, for
//  - a fan: one parent whose stack slot holds N children, and
//  - a chain: N modules, each embedding the next in a single slot.
// Built and run by Scripts/benchmark (VIVARIUM_BENCHMARK=1 adds this target to
// Package.swift; the debug build and `swift test` never compile it).
import Foundation
import ViperKit
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// Draws `heading`, a button and its slots; on attach, asks the host to embed
/// whatever `children` names. Plugins do the same through their routers.
final class BenchView: ViperView {
  let presenter: BenchPresenter
  let context: ModuleContext
  let heading: String
  let slots: [String]
  let children: [(urn: String, slot: String)]

  init(context: ModuleContext, heading: String, slots: [String], children: [(urn: String, slot: String)]) {
    self.presenter = BenchPresenter()
    self.context = context
    self.heading = heading
    self.slots = slots
    self.children = children
  }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    let own: [ViewNode] = [.text(heading), .button(id: "open", title: "Open")]
    context.canvas.draw(.stack(.vertical, own + slots.map { .slot($0) }))
    for child in children { context.router.embed(child.urn, in: child.slot) }
  }

  func handle(_ event: ViewEvent) {}
}

final class BenchPresenter: ViperPresenter {}

/// `bench:fan` (N children in stack slot `items`), `bench:leaf:{i}`, and
/// `bench:chain:{left}` (embeds `bench:chain:{left - 1}` in slot `next` until 1).
struct BenchFactory: ModuleFactory {
  static var contract: Contract { Contract(urn: "bench:unused", summary: "Each instance has its own contract.") }
  let contract: Contract
  let fanSize: Int

  func build(_ context: ModuleContext) throws -> Module {
    let view: BenchView
    switch contract.urn {
    case "bench:fan":
      let leaves = (0..<fanSize).map { (urn: "bench:leaf:\($0)", slot: "items") }
      view = BenchView(context: context, heading: "A fan of \(fanSize)", slots: ["items"], children: leaves)
    case "bench:leaf:{i}":
      view = BenchView(context: context, heading: "Leaf \(context.arguments.int("i") ?? 0)", slots: [], children: [])
    default:
      let left = context.arguments.int("left") ?? 1
      let next = left > 1 ? [(urn: "bench:chain:\(left - 1)", slot: "next")] : []
      view = BenchView(context: context, heading: "Level \(left)", slots: ["next"], children: next)
    }
    return Module(view: view, presenter: view.presenter)
  }

  @MainActor
  static func catalog(fanSize: Int) -> PluginCatalog {
    let contracts = [
      Contract(
        urn: "bench:fan", summary: "A parent of many.",
        slots: [SlotSpec(name: "items", accepts: ["bench:leaf:{i}"], kind: .stack, description: "Leaves.")]),
      Contract(urn: "bench:leaf:{i}", summary: "A leaf.", arguments: [.required("i", .int, "Which.")]),
      Contract(
        urn: "bench:chain:{left}", summary: "A link of a chain.", arguments: [.required("left", .int, "Links left.")],
        slots: [SlotSpec(name: "next", accepts: ["bench:chain:{left}"], kind: .single, description: "The next.")]),
    ]
    let factories: [any ModuleFactory] = contracts.map { BenchFactory(contract: $0, fanSize: fanSize) }
    return PluginCatalog(outcomes: [.loaded(LoadedPlugin(path: "bench.so", name: "Bench", factories: factories))])
  }
}

/// Milliseconds of each phase of one run.
struct Phases {
  var build = 0.0
  var render = 0.0
  var teardown = 0.0
  var total: Double { build + render + teardown }
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

/// Opens `urn`, draws it at 80 columns, shuts it down; checks it drew `modules` frames.
@MainActor
func run(_ urn: String, fanSize: Int, modules: Int, services: HostServices) async throws -> Phases {
  let runtime = HostRuntime(catalog: BenchFactory.catalog(fanSize: fanSize), services: services)
  let clock = ContinuousClock()
  var phases = Phases()
  var start = clock.now
  try await runtime.open(urn)
  phases.build = milliseconds(clock.now - start)
  start = clock.now
  let lines = runtime.screen()?.lines(TextRenderer(width: 80)) ?? []
  phases.render = milliseconds(clock.now - start)
  start = clock.now
  runtime.shutdown()
  phases.teardown = milliseconds(clock.now - start)
  let frames = lines.filter { $0.hasSuffix("└") }.count + 1
  guard frames == modules, runtime.takeProblems().isEmpty else {
    throw BenchmarkError(message: "\(urn): drew \(frames) modules, expected \(modules)")
  }
  return phases
}

struct BenchmarkError: Error { let message: String }

/// `median (min–max)` of `values`.
func summary(_ values: [Double]) -> String {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  let median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  let text = String(format: "%7.2f (%.2f–%.2f)", median, sorted[0], sorted[sorted.count - 1])
  return text.padding(toLength: 26, withPad: " ", startingAt: 0)
}

func medianOnly(_ values: [Double]) -> String {
  let sorted = values.sorted()
  return String(format: "%7.2f", sorted[sorted.count / 2])
}

let runs = 11
let data = FileManager.default.temporaryDirectory.appendingPathComponent("vivarium-bench-\(getpid())").path
defer { try? FileManager.default.removeItem(atPath: data) }
let services = HostServices(dataDirectory: data, now: 0)
print(
  "ms, median (min–max) of \(runs) runs".padding(toLength: 37, withPad: " ", startingAt: 0)
    + "total                       build   render teardown")
do {
  // `composition-benchmark fan` or `chain` runs one shape, and `chain 1000`
  // one size of it (for profiling: instructions per size with callgrind).
  let words = Array(CommandLine.arguments.dropFirst())
  let shapes = words.filter { Int($0) == nil }
  let sizes = words.compactMap { Int($0) }
  for shape in shapes.isEmpty ? ["fan", "chain"] : shapes {
    for size in sizes.isEmpty ? [250, 1_000, 2_000] : sizes {
      let urn = shape == "fan" ? "bench:fan" : "bench:chain:\(size)"
      let modules = shape == "fan" ? size + 1 : size
      _ = try await run(urn, fanSize: size, modules: modules, services: services)
      var all: [Phases] = []
      for _ in 0..<runs { all.append(try await run(urn, fanSize: size, modules: modules, services: services)) }
      let label = shape == "fan" ? "a fan of \(size) children" : "a chain of \(size) nested modules"
      print(
        label.padding(toLength: 36, withPad: " ", startingAt: 0), summary(all.map(\.total)),
        medianOnly(all.map(\.build)), medianOnly(all.map(\.render)), medianOnly(all.map(\.teardown)))
    }
  }
} catch let error as BenchmarkError {
  print("error:", error.message)
  exit(1)
}
