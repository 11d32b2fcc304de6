import ViperKit

extension HostRuntime {
  /// The deep link of the main navigation stack as shown, to share where
  /// the person is; nil when nothing is shown. Behind `scheme://` when the
  /// app has a scheme.
  ///
  /// Each screen of the stack, bottom first, is its URN as it was opened,
  /// with the arguments given apart from it (`--arg`) folded into its query
  /// (`?name=value&…`, percent-encoded). After each screen comes, for each
  /// tabs slot along the path of children shown first (``ModuleNode/deepestSelected``),
  /// the URN of the tab shown when it is not the first, so that opening
  /// the link (``open(_:arguments:scheme:)``, in a runtime showing nothing)
  /// rebuilds the same stack showing the same tabs.
  ///
  /// What a link cannot say is left out: modal presentations (the layers
  /// over the main stack), children in a slot other than tabs that the
  /// module does not embed by itself, and tabs off that path. A deep link
  /// reads a segment as a child before it pushes it, so a screen pushed
  /// over one that has, or accepts, a child of the same URN comes back as
  /// that child.
  public func link(scheme: String?) -> String? {
    guard let stack = layers.first, !stack.isEmpty else { return nil }
    var segments: [String] = []
    for screen in stack {
      segments.append(Self.urn(screen.openedWith.urn, folding: screen.openedWith.arguments))
      for node in screen.deepestSelected {
        for slot in node.slots where slot.spec.kind == .tabs && slot.selected > 0 {
          segments += slot.visibleChildren.map(\.urn)
        }
      }
    }
    return (scheme.map { "\($0)://" } ?? "") + segments.joined(separator: "/")
  }

  /// `urn` with `arguments` added to its query, each name and value
  /// percent-encoded as ``URN/query(_:_:)`` does.
  static func urn(_ urn: String, folding arguments: [(name: String, value: String)]) -> String {
    arguments.reduce(urn) { text, argument in
      text + (text.contains("?") ? "&" : "?") + URN.encode(argument.name) + "=" + URN.encode(argument.value)
    }
  }
}
