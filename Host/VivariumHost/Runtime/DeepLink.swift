import ViperKit
import ViperKitHosting

/// Deep links: several URNs joined by `/`, each opened inside or on top of the
/// one before (docs/using-the-app.md, "Deep links"), optionally behind the app's `scheme://`.
enum DeepLink {
  /// The most segments a deep link may have: far more than any app needs, few
  /// enough that a runaway link fails at once instead of building for minutes.
  static let segmentLimit = 1_000

  /// The URN segments of `link`, or an error naming what is malformed.
  static func segments(of link: String, scheme: String?) throws(ResolveError) -> [String] {
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
  /// accepts it, or pushed on top. Only when all succeed does it replace what
  /// is shown; otherwise it names the failing segment and changes nothing.
  func openDeepLink(_ segments: [String], arguments: [(name: String, value: String)]) throws(ResolveError) {
    guard arguments.isEmpty || segments.count == 1 else {
      throw ResolveError(
        .unknownArgument, "--arg applies to a single URN; in a deep link give each segment its arguments as ?name=value"
      )
    }
    var stack: [ModuleNode] = []
    var position = 0
    do {
      stack.append(try buildAttached(segments[0], arguments: arguments))
      for segment in segments.dropFirst() {
        position += 1
        try step(into: segment, stack: &stack)
      }
    } catch {
      for node in stack.reversed() { detach(node) }
      let prefix =
        segments.count > 1
        ? "deep link segment \(position + 1) '\(HostRuntime.clipped(segments[position]))' failed: " : ""
      throw ResolveError(
        error.kind, prefix + error.message + (layers.isEmpty ? "" : "; the screen is unchanged"),
        refusedBy: error.refusedBy)
    }
    detachAll()
    layers = [stack]
    appear(stack[stack.count - 1])
  }

  private func step(into segment: String, stack: inout [ModuleNode]) throws(ResolveError) {
    let current = stack[stack.count - 1]
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
          _ = try insertChild(segment, in: slot.spec.name, of: node)
          if slot.spec.kind == .tabs, let index = node.slotIndex(slot.spec.name) {
            select(node.slots[index].children.count - 1, inSlot: index, of: node)
          }
          return
        }
      }
    }
    let pushed = try buildAttached(segment)
    pushed.opener = deepest.last
    stack.append(pushed)
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
