// Prints what a warm start costs inside the host, apart from starting the
// process (which `Scripts/benchmark loading` times whole, beside a bare
// dlopen loop), for plugin directories of growing size whose registry cache
// is filled: side by side, so that growth reads off one run.
//  - read: PluginRegistry.open, the cache file read and checked;
//  - scan: that, then every file of the directory looked up in it (one
//    `lstat` each, its permissions and its directory's checked), as
//    PluginDiscovery.scan does;
//  - plugins: that, then the catalog (route table, conflicts, overlaps,
//    setting owners) and the text of `vivarium plugins`.
// Each figure is the median of 21 runs with the min–max beside it, after one
// to warm up, then the same per plugin. Built and run by
// Scripts/lib/loading_scale.py (VIVARIUM_BENCHMARK=1 adds this target to
// Package.swift; the debug build and `swift test` never compile it).
//   loading-benchmark PLUGINS_DIR DATA_DIR [PLUGINS_DIR DATA_DIR]...
import Foundation
import VivariumLoading
import VivariumSupport
import VivariumTools

func microseconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3
}

/// The median, min and max of 21 runs of `body`, after one to warm up.
func figure(_ body: () -> Void) -> (median: Double, low: Double, high: Double) {
  body()
  let times = (0..<21).map { _ in microseconds(body) }.sorted()
  return (times[10], times[0], times[20])
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, arguments.count.isMultiple(of: 2) else {
  print("usage: loading-benchmark PLUGINS_DIR DATA_DIR [PLUGINS_DIR DATA_DIR]...")
  exit(2)
}
let scanner = PluginScanner(probe: PluginProbe(executable: "/proc/self/exe"), hosting: nil)
print(
  "plugins  "
    + ["read", "scan", "plugins"].map { "\($0) µs".padding(toLength: 24, withPad: " ", startingAt: 0) }
    .joined() + "per plugin, µs: read  scan  plugins")
for pair in stride(from: 0, to: arguments.count, by: 2) {
  let (plugins, data) = (arguments[pair], arguments[pair + 1])
  let discovery = PluginDiscovery(commandLine: [plugins], environment: [:], executable: "/proc/self/exe")
  var outcomes: [PluginOutcome] = []
  let read = figure { _ = PluginRegistry.open(dataDirectory: data) }
  let scan = figure {
    var registry = PluginRegistry.open(dataDirectory: data).0
    outcomes = discovery.scan(with: scanner, registry: &registry)
  }
  let listed = figure {
    var registry = PluginRegistry.open(dataDirectory: data).0
    let catalog = PluginCatalog(outcomes: discovery.scan(with: scanner, registry: &registry))
    _ = PluginsReport(discovery: discovery, catalog: catalog).text(style: .plain)
  }
  let count = outcomes.count
  let cached = outcomes.filter { if case .loaded(let plugin) = $0 { plugin.source == .cache } else { false } }.count
  guard cached == count else {
    print("\(plugins): \(count - cached) of \(count) plugins were not taken from the cache; fill it first")
    exit(1)
  }
  let cells = [read, scan, listed].map {
    String(format: "%8.0f (%.0f–%.0f)", $0.median, $0.low, $0.high).padding(
      toLength: 24, withPad: " ", startingAt: 0)
  }
  let each = [read, scan, listed].map { String(format: "%6.1f", $0.median / Double(max(count, 1))) }
  print(String(format: "%7d  ", count) + cells.joined() + "              " + each.joined(separator: " "))
}
