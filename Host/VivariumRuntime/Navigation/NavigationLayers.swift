/// One session's navigation layers: the main stack first, then one per
/// modal presentation, each a stack of screens, the top one last. Only
/// navigation changes them, a screen or a layer at a time; the lifecycle of
/// the modules they hold is the session's (``HostRuntime``).
@MainActor
final class NavigationLayers {
  /// The layers, the main stack first.
  private(set) var layers: [[ModuleNode]] = []

  /// Puts `node` on top of layer `index`.
  func push(_ node: ModuleNode, onLayer index: Int) {
    layers[index].append(node)
  }

  /// Takes the top screen off layer `index` and returns it.
  func pop(layer index: Int) -> ModuleNode {
    layers[index].removeLast()
  }

  /// Opens a new layer on top, with `node` its first screen.
  func present(_ node: ModuleNode) {
    layers.append([node])
  }

  /// Puts `node` in place of the screen at `position` of layer `index`.
  func replace(at position: Int, ofLayer index: Int, with node: ModuleNode) {
    layers[index][position] = node
  }

  /// Closes layer `index` and every layer over it.
  func close(from index: Int) {
    layers.removeSubrange(index...)
  }

  /// Puts `layers` in place of every layer (a deep link opened).
  func replaceAll(with layers: [[ModuleNode]]) {
    self.layers = layers
  }
}
