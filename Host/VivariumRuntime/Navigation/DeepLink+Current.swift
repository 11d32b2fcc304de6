import ViperKit

extension HostRuntime {
  /// The deep link of what is shown, to share where the person is; nil
  /// when nothing is shown. Behind `scheme://` when the app has a scheme.
  ///
  /// Each screen of the main stack, bottom first, is its URN as it was
  /// opened, with the arguments given apart from it (`--arg`) folded into
  /// its query (`?name=value&…`, percent-encoded). After each screen comes,
  /// for each tabs slot along the path of children shown first
  /// (``ModuleNode/deepestSelected``), the URN of the tab shown when it is
  /// not the first. Then come the modal presentations, each a layer written
  /// as its screens in the same way, as long as a module shown under it
  /// declares `.present` of its first screen: opening the link
  /// (``open(_:arguments:scheme:)``, in a runtime showing nothing) presents
  /// that screen modally again, and rebuilds the same layers showing the
  /// same tabs.
  ///
  /// What a link cannot say is left out: a modal no module under it
  /// declares it presents, and the layers above it (``linkLeavesOut``);
  /// children in a slot other than tabs that the module does not embed by
  /// itself, and tabs off that path. A deep link reads a segment as a child
  /// before it presents or pushes it, so a screen opened over one that has,
  /// or accepts, a child of the same URN comes back as that child.
  package func link(scheme: String?) -> String? {
    guard let parts = linkParts() else { return nil }
    return (scheme.map { "\($0)://" } ?? "") + parts.segments.joined(separator: "/")
  }

  /// The modal screens ``link(scheme:)`` leaves out, bottom first: those of
  /// the first modal layer that no module under it declares it presents,
  /// and of every layer above.
  package var linkLeavesOut: [ModuleNode] { linkParts()?.leftOut ?? [] }

  private func linkParts() -> (segments: [String], leftOut: [ModuleNode])? {
    guard let stack = layers.first, !stack.isEmpty else { return nil }
    var segments = Self.segments(of: stack)
    for (index, layer) in layers.enumerated().dropFirst() {
      let modal = Self.segments(of: layer)
      guard let first = modal.first, let under = layers[index - 1].last, Self.presenter(of: first, over: under) != nil
      else {
        return (segments, Array(layers[index...].joined()))
      }
      segments += modal
    }
    return (segments, [])
  }

  /// The segments of one layer's screens, each with the tabs it shows.
  private static func segments(of layer: [ModuleNode]) -> [String] {
    var segments: [String] = []
    for screen in layer {
      segments.append(urn(screen.openedWith.urn, folding: screen.openedWith.arguments))
      for node in screen.deepestSelected {
        for slot in node.slots where slot.spec.kind == .tabs && slot.selected > 0 {
          segments += slot.visibleChildren.map(\.urn)
        }
      }
    }
    return segments
  }

  /// `urn` with `arguments` added to its query, each name and value
  /// percent-encoded as ``URN/query(_:_:)`` does.
  static func urn(_ urn: String, folding arguments: [(name: String, value: String)]) -> String {
    arguments.reduce(urn) { text, argument in
      text + (text.contains("?") ? "&" : "?") + URN.encode(argument.name) + "=" + URN.encode(argument.value)
    }
  }
}
