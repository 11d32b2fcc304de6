// What confinement costs (issue 30): a plugin process's start, fork to
// ready, confined, confined in the host's network namespace, and with
// `--no-sandbox`, side by side in one run; and a view event's round trip
// both ways.
import Foundation
import VivariumLoading
import VivariumRuntime

/// How a plugin process is started, for the figures.
enum StartMode: CaseIterable {
  /// Confined, in an empty network namespace of its own: the default.
  case confined
  /// Confined, in the host's network namespace: what the namespace costs.
  case sharedNetwork
  /// `--no-sandbox`.
  case unconfined
}

/// Milliseconds from asking for a plugin process to its being ready, for
/// ProductSearch alone: `count` starts each way, in alternation, after 5
/// each not counted.
@MainActor
func processStarts(vivarium: String, plugins: String, count: Int) async -> [StartMode: [Double]] {
  let single = FileManager.default.temporaryDirectory.appendingPathComponent("vivarium-sandbox-\(getpid())").path
  try? FileManager.default.createDirectory(atPath: single, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: single) }
  try? FileManager.default.createSymbolicLink(
    atPath: single + "/libProductSearch.so", withDestinationPath: plugins + "/libProductSearch.so")
  var starts: [StartMode: [Double]] = [:]
  for round in 0..<(count + 5) {
    for mode in StartMode.allCases {
      var options = PluginProcessOptions(executable: vivarium)
      options.confined = mode != .unconfined
      options.ownNetwork = mode == .confined
      let start = nanoseconds()
      let outcomes = await PluginDiscovery(commandLine: [single], environment: [:], executable: vivarium)
        .load(hosting: options)
      let ready = nanoseconds()
      guard case .loaded(let plugin)? = outcomes.first, let process = plugin.process else {
        fail("ProductSearch did not start (\(mode)): \(outcomes)")
      }
      process.terminate()
      if round >= 5 { starts[mode, default: []].append(Double(ready - start) / 1e6) }
    }
  }
  return starts
}

/// The 95th percentile of `values`.
func p95(_ values: [Double]) -> Double { values.sorted()[values.count * 95 / 100] }

/// Prints confinement's figures, side by side.
@MainActor
func sandboxFigures(vivarium: String, plugins: String, data: (String) -> String) async {
  let count = 60
  print("A plugin process's start, fork to ready (ProductSearch; \(count) each way, alternating; ms)")
  let starts = await processStarts(vivarium: vivarium, plugins: plugins, count: count)
  let (confined, shared, free) = (starts[.confined]!, starts[.sharedNetwork]!, starts[.unconfined]!)
  print("    confined         \(tail(confined))")
  print("    host's network   \(tail(shared))   (confined, no network namespace of its own)")
  print("    --no-sandbox     \(tail(free))")
  let added = p95(confined) - p95(free)
  print(
    String(
      format: "    confinement adds %.2f ms at the median, %.2f ms at p95 (target ≤ 2 ms at p95: %@)",
      median(confined) - median(free), added, added <= 2 ? "met" : "MISSED"))
  print(
    String(
      format:
        "    of which the network namespace (made once, by the zygote, and shared by its forks): %.2f ms at the median, %.2f ms at p95",
      median(confined) - median(shared), p95(confined) - p95(shared)))
  print("A view event's round trip, products:search Next and Previous (1,000 each way; µs)")
  var turns: [Bool: [Double]] = [true: [], false: []]
  for round in 0..<4 {
    for mode in [true, false] {
      turns[mode]! += await tapTimes(
        vivarium: vivarium, plugins: plugins, data: data("turns-\(mode)-\(round)"), live: 1, count: 250,
        confined: mode)
    }
  }
  print("    confined         \(tail(turns[true]!))")
  print("    --no-sandbox     \(tail(turns[false]!))")
  print(String(format: "    confined / --no-sandbox, medians: %.2f×", median(turns[true]!) / median(turns[false]!)))
}
