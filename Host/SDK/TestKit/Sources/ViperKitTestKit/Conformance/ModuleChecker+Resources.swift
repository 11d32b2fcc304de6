import Foundation
import ViperKit

/// Checks of what building modules costs: leaks, threads, time.
extension ModuleChecker {
  func leaksAfterTeardown() -> Outcome {
    guard let module = try? harness() else { return .skipped("see build.minimal") }
    module.presentNow()
    let alive = module.tearDown()
    return alive.isEmpty
      ? .passed("every role was released") : .failed("still alive after detach: \(describe(alive)), a reference cycle")
  }

  /// Memory, not role objects (leaks.teardown counts those): what a module
  /// keeps outside its roles, in caches or globals, grows with every build.
  func leaksRepeated() -> Outcome {
    let cycles = strictness * 10
    func cycle() -> Bool {
      guard let module = try? harness() else { return false }
      module.presentNow()
      module.tearDown()
      return true
    }
    for _ in 0..<5 where !cycle() { return .skipped("see build.minimal") }
    guard let before = ResidentMemory.bytes() else { return .skipped("this system does not report resident memory") }
    for _ in 0..<cycles { _ = cycle() }
    let growth = (ResidentMemory.bytes() ?? before) - before
    guard growth <= ModuleChecker.memoryLimit else {
      return .failed("memory grew by \(growth >> 20) MB over \(cycles) builds and teardowns")
    }
    return .passed("memory grew by \(growth >> 10) KB over \(cycles) builds and teardowns")
  }

  /// Growth over a repeated build that fails leaks.repeated: 16 MB.
  static let memoryLimit = 16 << 20

  func concurrentBuilds() -> Outcome {
    guard let reference = try? harness() else { return .skipped("see build.minimal") }
    reference.presentNow()
    let expected = reference.tree
    reference.tearDown()
    let count = strictness / 2 + 2
    let modules = (0..<count).compactMap { _ in try? ModuleHarness(factory, arguments: SampleValues.arguments(contract))
    }
    for module in modules { module.presentNow() }
    defer { for module in modules { module.tearDown() } }
    for (index, module) in modules.enumerated() where module.tree != expected {
      return .failed(
        "instance \(index + 1) of \(count) built side by side drew another tree than one built alone: instances share mutable state"
      )
    }
    return .passed("\(count) instances built side by side drew what one alone draws")
  }

  func firstRenderSpeed() -> Outcome {
    let clock = ContinuousClock()
    var module: ModuleHarness?
    let elapsed = clock.measure {
      module = try? harness()
      module?.presentNow()
    }
    guard let module else { return .skipped("see build.minimal") }
    module.tearDown()
    let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
    let shown = String(format: "%.1f ms", milliseconds)
    return milliseconds > 50
      ? .warning("building and the first cycle took \(shown), over 50 ms") : .passed("build and first cycle: \(shown)")
  }

  private func describe(_ roles: [RoleReference]) -> String {
    roles.map { "\($0.role.rawValue) \($0.typeName)" }.joined(separator: ", ")
  }
}

enum ResidentMemory {
  static func bytes() -> Int? {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
