import Foundation
import Testing

/// The host's targets, as Package.swift declares them: each imports exactly
/// the targets it names, and docs/architecture.dot, the picture in
/// docs/architecture.md and the README, draws that graph.
@Suite("Architecture")
struct ArchitectureTests {
  /// A target of the host and the targets it depends on.
  struct HostTarget: Equatable {
    let name: String
    let path: String
    let dependencies: Set<String>
  }

  /// The SDK's products, named in Package.swift by these constants.
  static let sdkProducts = ["viperKit": "ViperKit", "hosting": "ViperKitHosting", "testKit": "ViperKitTestKit"]
  /// The targets under Host/ that Package.swift declares, from its text.
  static func declaredTargets() throws -> [HostTarget] {
    let manifest = try String(contentsOfFile: BuildProducts.repository + "/Package.swift", encoding: .utf8)
    let target =
      #/\.(?:target|executableTarget)\(\s*name: "(?<name>[^"]+)"(?:,\s*dependencies: \[(?<dependencies>[^\]]*)\])?,\s*path: "(?<path>Host/[^"]+)"/#
    return manifest.matches(of: target).map { match in
      let names = (match.output.dependencies.map(String.init) ?? "").split(separator: ",").map {
        $0.trimmingCharacters(in: .whitespacesAndNewlines.union(["\""]))
      }.filter { !$0.isEmpty }
      return HostTarget(
        name: String(match.output.name), path: String(match.output.path),
        dependencies: Set(names.map { sdkProducts[$0] ?? $0 }))
    }
  }

  /// The modules of this package and the SDK that the sources under `path` import.
  static func imports(under path: String, known: Set<String>) throws -> Set<String> {
    let root = BuildProducts.repository + "/" + path
    let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
    var found: Set<String> = []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
      for match in text.matches(
        of:
          #/(?m)^(?:@\w+ )*(?:(?:public|package|internal|fileprivate|private) )?import (?:(?:struct|class|enum|protocol|typealias|func|let|var) )?(?<module>\w+)/#
      ) {
        // CViperKit comes with the ViperKit product.
        let module = match.output.module == "CViperKit" ? "ViperKit" : String(match.output.module)
        if known.contains(module) { found.insert(module) }
      }
    }
    return found
  }

  /// The graph as docs/architecture.dot draws it: every declared arrow that
  /// no longer path already implies (the rest are in Package.swift).
  static func dot(_ targets: [HostTarget]) -> String {
    let dependencies = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0.dependencies) })
    func reaches(_ from: String, _ to: String) -> Bool {
      var seen: Set<String> = []
      var next = Array(dependencies[from] ?? [])
      while let name = next.popLast() {
        if name == to { return true }
        if seen.insert(name).inserted { next += dependencies[name] ?? [] }
      }
      return false
    }
    var lines = [
      "// Drawn from Package.swift by ArchitectureTests (Scripts/update-architecture-graph).",
      "digraph Vivarium {", "  rankdir=TB;", "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
      "  subgraph cluster_sdk {", "    label=\"SDK (Host/SDK, its own package)\";", "    style=dashed;",
    ]
    lines += Self.sdkProducts.values.sorted().map { "    \"\($0)\";" }
    lines.append("  }")
    for target in targets.sorted(by: { $0.name < $1.name }) {
      let shape = target.path.hasPrefix("Host/vivarium") ? " [shape=component]" : ""
      lines.append("  \"\(target.name)\"\(shape);")
      for dependency in target.dependencies.sorted() {
        let implied = target.dependencies.contains { $0 != dependency && reaches($0, dependency) }
        if !implied { lines.append("  \"\(target.name)\" -> \"\(dependency)\";") }
      }
    }
    lines.append("}")
    return lines.joined(separator: "\n") + "\n"
  }

  @Test func everyHostTargetImportsExactlyWhatItDeclares() throws {
    let targets = try Self.declaredTargets()
    let names = Set(targets.map(\.name))
    #expect(names.isSuperset(of: ["VivariumWire", "VivariumLoading", "VivariumPluginSide", "VivariumRuntime"]))
    let known = names.union(Self.sdkProducts.values).union(["CViperKit"])
    for target in targets {
      let imported = try Self.imports(under: target.path, known: known)
      #expect(
        imported == target.dependencies,
        """
        \(target.name) imports \(imported.sorted()) but Package.swift declares \(target.dependencies.sorted()): \
        declare what it imports, and nothing else
        """)
    }
  }

  /// The plugin process's server loop is the executable's alone: no other
  /// target, the tests' and the benchmarks' included, links it.
  @Test func onlyTheExecutableLinksThePluginSide() throws {
    let linking = try Self.declaredTargets().filter { $0.dependencies.contains("VivariumPluginSide") }
    #expect(linking.map(\.name) == ["vivarium"])
    // Targets declared in code (the benchmarks) or outside Host/ name it too.
    let manifest = try String(contentsOfFile: BuildProducts.repository + "/Package.swift", encoding: .utf8)
    #expect(manifest.ranges(of: "\"VivariumPluginSide\"").count == 2, "its declaration and vivarium's dependency")
  }

  /// The SDK is the one public API: the host's libraries share what they
  /// share with `package` access, so that nothing of theirs reads as a
  /// promise to anyone outside this repository. (The sources `vivarium
  /// new` writes, in multi-line strings, are plugins' code, and public.)
  @Test func nothingInTheHostsLibrariesIsPublic() throws {
    let declaration =
      #/^[^/"]*\b(?:public|open)\s+(?:[@\w]+(?:\([\w ]*\))?\s+)*?(?:func|var|let|init|struct|class|enum|protocol|typealias|subscript|actor|extension|case|associatedtype|macro|operator)\b/#
    // The pattern finds what it must, modifiers and all.
    for line in [
      "public func f()", "  @MainActor public final class A {", "public nonisolated(unsafe) static var x = 1",
      "public static prefix func - (a: A) -> A", "public private(set) var y: Int", "open class B {}",
    ] {
      #expect(line.firstMatch(of: declaration) != nil, "\(line)")
    }
    let targets = try Self.declaredTargets()
    #expect(targets.count > 5)
    var found: [String] = []
    for target in targets {
      let root = BuildProducts.repository + "/" + target.path
      let files = try #require(FileManager.default.enumerator(atPath: root)).compactMap { $0 as? String }
      for file in files.sorted() where file.hasSuffix(".swift") {
        let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
        var inString = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
          let quotes = line.ranges(of: "\"\"\"").count
          defer { if quotes % 2 == 1 { inString.toggle() } }
          guard !inString, line.firstMatch(of: declaration) != nil else { continue }
          found.append("\(target.path)/\(file): \(line.trimmingCharacters(in: .whitespaces))")
        }
      }
    }
    #expect(found.isEmpty, "\(found.prefix(10))")
  }

  /// The runtime reaches plugin processes only through the loading layer.
  @Test func theRuntimeKnowsNothingOfTheWire() throws {
    let runtime = try #require(try Self.declaredTargets().first { $0.name == "VivariumRuntime" })
    #expect(!runtime.dependencies.contains("VivariumWire"))
    #expect(!runtime.dependencies.contains("VivariumPluginSide"))
  }

  /// The web's protocols are bytes in and bytes out: no other target of
  /// the host's, nor the SDK, so that a server can be built on them
  /// without pulling in plugins or sessions.
  @Test func theWebKnowsNothingElse() throws {
    let web = try #require(try Self.declaredTargets().first { $0.name == "VivariumWeb" })
    #expect(web.dependencies.isEmpty)
    #expect(web.path == "Host/VivariumWeb")
  }

  @Test func thePictureIsDrawnFromPackageSwift() throws {
    let drawn = Self.dot(try Self.declaredTargets())
    let path = BuildProducts.repository + "/docs/architecture.dot"
    if ProcessInfo.processInfo.environment["VIVARIUM_UPDATE_ARCHITECTURE"] != nil {
      try drawn.write(toFile: path, atomically: true, encoding: .utf8)
    }
    let committed = try String(contentsOfFile: path, encoding: .utf8)
    #expect(drawn == committed, "docs/architecture.dot is out of date: run Scripts/update-architecture-graph")
  }
}
