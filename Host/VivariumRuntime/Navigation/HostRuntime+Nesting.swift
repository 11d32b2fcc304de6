import ViperKit

/// How deep modules may sit inside one another.
extension HostRuntime {
  /// The most levels a screen's tree of modules may have, the screen the
  /// first: far deeper than any app's tree (the composition benchmark nests
  /// 2,000), shallow enough that a module embedding a new URN in itself
  /// without end is stopped before the tree is too deep to draw.
  static let nestingLimit = 5_000

  /// Throws when `urn`, embedded in `parent`, would sit inside a module of
  /// the very same URN (a cycle, named from that module to the new one:
  /// `a:x → a:x`), or deeper than ``nestingLimit``.
  func checkNesting(_ urn: String, in parent: ModuleNode) throws(ResolveError) {
    guard parent.lineage.depth + 1 < Self.nestingLimit else {
      throw ResolveError(
        .tooDeep,
        "it would make the tree of modules deeper than \(SessionHeader.grouped(Self.nestingLimit)) levels, the nesting limit; a module that embeds another in itself must stop somewhere"
      )
    }
    // Walking up every level for every embed would make a deep tree slow to build.
    guard liveURNs.contains(urn), let chain = parent.lineage.chain(to: urn) else { return }
    throw ResolveError(
      .cycle,
      "it would sit inside itself (\(Self.described(chain.reversed() + [urn]))); a module may not embed a module it sits in"
    )
  }

  /// `a:x → b:y → a:x`, each URN clipped, the middle of a long chain left out.
  private static func described(_ chain: [String]) -> String {
    let shown = 3
    let urns = chain.map(clipped)
    guard urns.count > 2 * shown + 1 else { return urns.joined(separator: " → ") }
    let left = urns.count - 2 * shown
    return (urns.prefix(shown) + ["… \(SessionHeader.grouped(left)) more …"] + urns.suffix(shown))
      .joined(separator: " → ")
  }
}

/// How many modules built and not yet detached have each URN: an embed
/// looks for its URN among the modules it would sit in only when one has it.
@MainActor
final class LiveURNs {
  private var counts: [String: Int] = [:]

  /// A module of `urn` was built.
  func built(_ urn: String) { counts[urn, default: 0] += 1 }

  /// A module of `urn` was detached.
  func detached(_ urn: String) { counts[urn] = counts[urn].flatMap { $0 > 1 ? $0 - 1 : nil } }

  /// Whether a live module has `urn`.
  func contains(_ urn: String) -> Bool { counts[urn] != nil }
}
