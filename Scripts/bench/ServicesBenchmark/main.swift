// Prints how long resolving an app's business services takes as the app
// grows (issue 29), and what a one-byte save to a plugin's storage writes,
// in a small store and a large one: ServiceGraph.resolve over the plugins' manifests already
// read (the scan is timed apart, by `Scripts/benchmark loading`), for 20,
// 200 and 2,000 plugins, each providing 5 services that require 2 services
// of earlier plugins, with 3 modules each requiring 2 services: 100, 1,000
// and 10,000 services side by side, so growth reads off one run. Each figure
// is the median of 21 runs with the min–max beside it, after one to warm up.
// Built and run by Scripts/benchmark services (VIVARIUM_BENCHMARK=1 adds this
// target to Package.swift; the debug build and `swift test` never compile it).
import Foundation
import ViperKit
import VivariumLoading
import VivariumRuntime

/// `plugins` plugins of the shape above; every requirement is in range.
func app(plugins: Int) -> [ServiceGraph.Plugin] {
  let range = VersionRange("1"..<"2")
  func requirement(_ number: Int) -> ServiceRequirement {
    ServiceRequirement(service: "s\(number)", versions: range, isOptional: false)
  }
  return (0..<plugins).map { index in
    let provides = (0..<5).map { offset in
      let number = index * 5 + offset
      let requires = index == 0 ? [] : [requirement((index - 1) * 5 + offset), requirement(number % 5)]
      return ServiceProvision(service: "s\(number)", version: "1.0", requires: requires)
    }
    let contracts = (0..<3).map { module in
      Contract(
        urn: "p\(index):m\(module)", summary: "A module.",
        requires: [
          requirement((index * 7 + module) % (plugins * 5)), requirement((index * 3 + module) % (plugins * 5)),
        ])
    }
    return ServiceGraph.Plugin(name: "P\(index)", version: "1.0", provides: provides, contracts: contracts)
  }
}

func milliseconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

print("Resolving the service graph from manifests already read (ms; median (min–max) of 21 runs)")
var medians: [Int: Double] = [:]
for plugins in [20, 200, 2_000] {
  let input = app(plugins: plugins)
  var findings = 0
  _ = ServiceGraph.resolve(input)
  let times = (0..<21).map { _ in milliseconds { findings = ServiceGraph.resolve(input).findings.count } }.sorted()
  medians[plugins] = times[10]
  guard findings == 0 else {
    print("the generated app has \(findings) findings; it should have none")
    exit(1)
  }
  print(
    String(
      format: "  %5d services across %4d plugins  %8.3f (%.3f–%.3f)", plugins * 5, plugins, times[10], times[0],
      times[20]))
}
let target = medians[200] ?? .infinity
print(
  String(
    format: "  1,000 services: %.3f ms, target ≤ 10 ms: %@; 10,000 / 1,000: %.1f× for 10× the services",
    target, target <= 10 ? "met" : "MISSED", (medians[2_000] ?? 0) / target))

/// Bytes this process has passed to `write` so far (`wchar` of /proc/self/io).
func bytesWritten() -> Int {
  let text = (try? String(contentsOfFile: "/proc/self/io", encoding: .utf8)) ?? ""
  let line = text.split(separator: "\n").first { $0.hasPrefix("wchar:") }
  return line.flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces)) } ?? 0
}

print()
print("A one-byte save to a plugin's storage (bytes written per save and µs; median (min–max) of 9 runs of 500 saves)")
MainActor.assumeIsolated {
  let data = NSTemporaryDirectory() + "/vivarium-storage-benchmark-\(getpid())"
  defer { try? FileManager.default.removeItem(atPath: data) }
  let services = HostServices(dataDirectory: data)
  var perSave: [Int: Double] = [:]
  for (index, size) in [64 << 10, 8 << 20].enumerated() {
    let plugin = PluginIdentity(name: "Bench\(index)Plugin", path: "/bench/libBench\(index).so")
    let contract = Contract(urn: "bench:\(index)", summary: "saves", services: [.storage])
    guard let store = services.services(for: contract, plugin: plugin, urn: "bench:\(index)").storage else { exit(1) }
    do {
      try store.set(String(repeating: "x", count: size), forKey: "bulk")
      var bytes: [Double] = []
      var micros: [Double] = []
      for run in 0..<9 {
        let before = bytesWritten()
        let start = DispatchTime.now().uptimeNanoseconds
        for save in 0..<500 { try store.set(String((run + save) % 10), forKey: "count") }
        micros.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / 500)
        bytes.append(Double(bytesWritten() - before) / 500)
      }
      bytes.sort()
      micros.sort()
      perSave[size] = bytes[4]
      print(
        String(
          format: "  a store of %5d KiB  %9.0f B (%.0f–%.0f)  %8.1f µs (%.1f–%.1f)", size >> 10, bytes[4], bytes[0],
          bytes[8], micros[4], micros[0], micros[8]))
    } catch {
      print("  a store of \(size >> 10) KiB: the save failed: \(error)")
      exit(1)
    }
  }
  let ratio = (perSave[8 << 20] ?? 0) / max(1, perSave[64 << 10] ?? 1)
  print(String(format: "  8 MiB / 64 KiB: %.2f× the bytes for 128× the store", ratio))
}
