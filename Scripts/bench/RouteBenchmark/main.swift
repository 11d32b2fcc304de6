// Prints how long resolving one URN takes as the route table grows: the trie
// alone, on URNs parsed beforehand. Built and run by Scripts/benchmark.
import Foundation
import ViperKitHosting
import VivariumHost

do {
  print("patterns   resolve (ns/URN, best of 5 rounds of 100000 lookups)")
  for count in [10, 1_000, 100_000] {
    var table = RouteTable<Int>()
    for index in 0..<count {
      table.insert(try URNPattern(parsing: "ns\(index):screen:{id}"), index)
      table.insert(try URNPattern(parsing: "ns\(index):screen:{id}:tab:settings"), index)
    }
    let urns = try (0..<1_000).map { try ParsedURN(parsing: "ns\(($0 * 7919) % count):screen:\($0)") }
    var best = Double.infinity
    var found = 0
    for _ in 0..<5 {
      let start = DispatchTime.now().uptimeNanoseconds
      for round in 0..<100 {
        for urn in urns {
          if case .matched(let entry, _) = table.resolve(urn) { found &+= entry.value &+ round }
        }
      }
      let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 100_000
      best = min(best, elapsed)
    }
    print(String(format: "%8d   %8.1f", count * 2, best), found == 0 ? "(no match?)" : "")
  }
} catch {
  print("error:", error)
  exit(1)
}
