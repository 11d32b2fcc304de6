import ViperKit
import ViperKitHosting

/// Deep links: several URNs joined by `/`, each opened inside or on top of the
/// one before (docs/using-the-app.md, "Deep links"), optionally behind the app's `scheme://`.
package enum DeepLink {
  /// The most segments a deep link may have: far more than any app needs, few
  /// enough that a runaway link fails at once instead of building for minutes.
  static let segmentLimit = 1_000

  /// The URN segments of `link`, or an error naming what is malformed.
  package static func segments(of link: String, scheme: String?) throws(ResolveError) -> [String] {
    var body = Substring(link)
    if let separator = link.range(of: "://") {
      let given = String(link[..<separator.lowerBound])
      guard let scheme else {
        throw ResolveError(
          .invalidURN, "'\(given)://' links need an app manifest with a scheme; open the URNs without it")
      }
      guard given == scheme else {
        throw ResolveError(.invalidURN, "the link's scheme is '\(given)', this app's is '\(scheme)'")
      }
      body = link[separator.upperBound...]
    }
    let segments = body.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    guard segments.count <= segmentLimit else {
      throw ResolveError(
        .invalidURN,
        "the deep link has \(SessionHeader.grouped(segments.count)) segments, more than the \(SessionHeader.grouped(segmentLimit)) a link may have; open fewer screens at once"
      )
    }
    if let empty = segments.firstIndex(where: \.isEmpty) {
      throw ResolveError(
        .invalidURN,
        "deep link segment \(empty + 1) of '\(HostRuntime.clipped(link))' is empty; join URNs with single '/'")
    }
    return segments
  }
}

extension HostRuntime {
  /// Builds every segment off screen: the first as the root, each next one as
  /// an existing child (selected if in tabs), a new child in a slot that
  /// accepts it, a modal presented by the module shown whose contract
  /// declares `.present` of it, or pushed on top. Only when all succeed does
  /// it replace what is shown; otherwise it names the failing segment and
  /// changes nothing.
  func openDeepLink(_ segments: [String], arguments: [(name: String, value: String)]) async throws(ResolveError) {
    guard arguments.isEmpty || segments.count == 1 else {
      throw ResolveError(
        .unknownArgument, "--arg applies to a single URN; in a deep link give each segment its arguments as ?name=value"
      )
    }
    var built: [[ModuleNode]] = []
    var position = 0
    do {
      built.append([try await buildAttached(segments[0], arguments: arguments)])
      for segment in segments.dropFirst() {
        position += 1
        try await step(into: segment, layers: &built)
      }
    } catch {
      for node in built.joined().reversed() { detach(node) }
      let prefix =
        segments.count > 1
        ? "deep link segment \(position + 1) '\(HostRuntime.clipped(segments[position]))' failed: " : ""
      throw ResolveError(
        error.kind, prefix + error.message + (layers.isEmpty ? "" : "; the screen is unchanged"),
        refusedBy: error.refusedBy, redirect: error.redirect)
    }
    detachAll()
    navigation.replaceAll(with: built)
    if let shown = top { appear(shown) }
  }

  private func step(into segment: String, layers built: inout [[ModuleNode]]) async throws(ResolveError) {
    let current = built[built.count - 1][built[built.count - 1].count - 1]
    let deepest = current.deepestSelected
    for node in deepest.reversed() {
      for (slotIndex, slot) in node.slots.enumerated() {
        if let position = slot.children.firstIndex(where: { $0.urn == segment }) {
          if slot.spec.kind == .tabs { select(position, inSlot: slotIndex, of: node) }
          return
        }
      }
    }
    if let parsed = try? ParsedURN(parsing: segment) {
      for node in deepest.reversed() {
        for slot in node.slots
        where slot.spec.accepts.compactMap({ try? URNPattern(parsing: $0) }).contains(where: { $0.match(parsed) != nil }
        ) {
          _ = try await insertChild(segment, in: slot.spec.name, of: node)
          if slot.spec.kind == .tabs, let index = node.slotIndex(slot.spec.name) {
            select(node.slots[index].children.count - 1, inSlot: index, of: node)
          }
          return
        }
      }
    }
    let opened = try await buildAttached(segment)
    if let presenter = Self.presenter(of: segment, over: current) {
      opened.opener = presenter
      built.append([opened])
    } else {
      opened.opener = deepest.last
      built[built.count - 1].append(opened)
    }
  }

  /// The module shown in `screen`, innermost first, whose contract declares
  /// that it presents `urn` modally: a deep link opens `urn` as its modal,
  /// and the link of what is shown can hold such a modal.
  static func presenter(of urn: String, over screen: ModuleNode) -> ModuleNode? {
    screen.deepestSelected.reversed().first { node in
      node.contract.opens.contains { $0.kind == .present }
        && NavigationCheck.problem(.present, urn, from: node.contract) == nil
    }
  }
}

extension ModuleNode {
  /// This node and, down the tree, each visible child along the first path:
  /// where a deep link's next segment is looked for, innermost last.
  var deepestSelected: [ModuleNode] {
    guard let child = visibleChildren.first else { return [self] }
    return [self] + child.deepestSelected
  }
}
