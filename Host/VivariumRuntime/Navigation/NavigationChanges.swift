import ViperKit

extension NavigationState {
  /// One change to a saved state, as the journal of the saved screens
  /// records it (``NavigationStore``): what a step changed, never the whole
  /// stack, so that recording a step costs the same however deep the stack is.
  package enum Change: Codable, Equatable, Sendable {
    /// Keeps the layers under `layer` and the first `keep` screens of
    /// layer `layer`; every screen above is gone (a layer left empty too).
    case cut(layer: Int, keep: Int)
    /// Puts `screen` at position `index` of layer `layer`: in place of the
    /// screen there, or on top of the layer, or as the first screen of a
    /// new layer on top.
    case put(layer: Int, index: Int, screen: Screen)
  }

  /// Applies `change`; false, with nothing changed, when it does not fit
  /// this state (a journal that does not belong to it).
  package mutating func apply(_ change: Change) -> Bool {
    switch change {
    case .cut(let layer, let keep):
      guard layer >= 0, keep >= 0, layer < layers.count || (layer == layers.count && keep == 0) else { return false }
      guard layer < layers.count else { return true }
      guard keep <= layers[layer].count else { return false }
      layers.removeSubrange((keep > 0 ? layer + 1 : layer)...)
      if keep > 0 { layers[layer].removeSubrange(keep...) }
    case .put(let layer, let index, let screen):
      if layer == layers.count, index == 0 {
        layers.append([screen])
      } else if layers.indices.contains(layer), index >= 0, index <= layers[layer].count {
        if index == layers[layer].count { layers[layer].append(screen) } else { layers[layer][index] = screen }
      } else {
        return false
      }
    }
    return true
  }
}

/// Says what changed in where the person is since it was last asked: the
/// screens pushed, popped, presented, dismissed or replaced, and the screens
/// whose modules ran (drew, asked for something, were called) and so may
/// keep another restoration state or show other children. What it looks at
/// is what changed, never the whole stack: the screens on top down to the
/// first one still where it was, and the screens the runtime marked.
@MainActor
package final class NavigationChangeTracker {
  private let runtime: HostRuntime
  /// The id of each module on each layer when changes were last taken.
  private var saved: [[Int]] = []
  /// Where each of them is, by id.
  private var savedPositions: [Int: Position] = [:]
  /// Whether changes were taken before.
  private var started = false

  /// Tracks `runtime` from now on. The first ``takeChanges()`` gives every
  /// screen shown, after a cut of everything.
  package init(_ runtime: HostRuntime) {
    self.runtime = runtime
    runtime.touchedScreens.startTracking()
  }

  /// The changes since the last call, in the order to apply them: at most
  /// one cut, then the screens put back or on top.
  package func takeChanges() -> [NavigationState.Change] {
    let layers = runtime.layers
    let touched = runtime.touchedScreens.take()
    // The topmost screen still where it was: everything under it is too
    // (a stack only changes at the top, or by a screen replaced in place,
    // whose module was detached and so marked).
    var cut = (layer: 0, keep: 0)
    var layer = started ? min(layers.count, saved.count) - 1 : -1
    search: while layer >= 0 {
      var index = min(layers[layer].count, saved[layer].count) - 1
      while index >= 0 {
        if layers[layer][index].id == saved[layer][index] {
          cut = (layer, index + 1)
          break search
        }
        index -= 1
      }
      layer -= 1
    }
    var changes: [NavigationState.Change] = []
    if !started || saved.count > cut.layer + 1
      || (saved.indices.contains(cut.layer) && saved[cut.layer].count > cut.keep)
    {
      changes.append(.cut(layer: cut.layer, keep: cut.keep))
    }
    started = true
    trim(to: cut)
    // Screens under the cut that ran, and the screen over each (whose
    // opener is found through the one under it), by position. A saved
    // screen under the cut that was detached was replaced in place: the
    // screen now there is put instead. Looked up, not searched for.
    var rewritten: Set<Position> = []
    for node in touched.values {
      guard let position = savedPositions[node.id], position < Position(cut) else { continue }
      rewritten.insert(position)
      if let above = self.position(after: position, in: layers), above < Position(cut) { rewritten.insert(above) }
    }
    for position in rewritten.sorted() {
      changes.append(.put(layer: position.layer, index: position.index, screen: screen(at: position, in: layers)))
      savedPositions[saved[position.layer][position.index]] = nil
      let id = layers[position.layer][position.index].id
      saved[position.layer][position.index] = id
      savedPositions[id] = position
    }
    var position = Position(cut)
    if !layers.indices.contains(position.layer) || layers[position.layer].count == position.index {
      position = Position(layer: position.layer + 1, index: 0)
    }
    while layers.indices.contains(position.layer), layers[position.layer].indices.contains(position.index) {
      changes.append(.put(layer: position.layer, index: position.index, screen: screen(at: position, in: layers)))
      if position.index == 0 { saved.append([]) }
      let id = layers[position.layer][position.index].id
      saved[position.layer].append(id)
      savedPositions[id] = position
      position = self.position(after: position, in: layers) ?? Position(layer: layers.count, index: 0)
    }
    return changes
  }

  /// A screen's place: its layer and its position on it.
  private struct Position: Hashable, Comparable {
    let layer: Int
    let index: Int
    init(layer: Int, index: Int) {
      self.layer = layer
      self.index = index
    }
    init(_ cut: (layer: Int, keep: Int)) { self.init(layer: cut.layer, index: cut.keep) }
    static func < (left: Position, right: Position) -> Bool {
      (left.layer, left.index) < (right.layer, right.index)
    }
  }

  /// Forgets the saved screens from `cut` up, changing ``saved`` in place:
  /// what is kept costs nothing, each screen forgotten once.
  private func trim(to cut: (layer: Int, keep: Int)) {
    while saved.count > cut.layer + 1 || (saved.count == cut.layer + 1 && cut.keep == 0) {
      for id in saved.removeLast() { savedPositions[id] = nil }
    }
    while saved.indices.contains(cut.layer), saved[cut.layer].count > cut.keep {
      savedPositions[saved[cut.layer].removeLast()] = nil
    }
  }

  /// The screen over `position`, on its layer or the first of the next.
  private func position(after position: Position, in layers: [[ModuleNode]]) -> Position? {
    if position.index + 1 < layers[position.layer].count {
      return Position(layer: position.layer, index: position.index + 1)
    }
    return position.layer + 1 < layers.count ? Position(layer: position.layer + 1, index: 0) : nil
  }

  /// The screen at `position` as saved, with the module that opened it
  /// found in the screen under it.
  private func screen(at position: Position, in layers: [[ModuleNode]]) -> NavigationState.Screen {
    let node = layers[position.layer][position.index]
    var saved = runtime.savedScreen(node)
    let below: ModuleNode? =
      position.index > 0
      ? layers[position.layer][position.index - 1]
      : position.layer > 0 ? layers[position.layer - 1].last : nil
    if let below, let opener = node.opener { saved.openedBy = below.path(to: opener) }
    return saved
  }
}

extension HostRuntime {
  /// Marks the screen holding `node` as changed, for the saving of where
  /// the person is (``NavigationChangeTracker``): its module ran, or its
  /// children changed.
  func touch(_ node: ModuleNode) {
    touchedScreens.touch(node)
  }
}

/// The screens whose modules ran or whose children changed since the
/// ``NavigationChangeTracker`` last looked, by id: marked only while one
/// tracks.
@MainActor
final class TouchedScreens {
  private var screens: [Int: ModuleNode]?

  /// Marks from now on.
  func startTracking() { screens = [:] }

  /// Marks no more (the session is quitting).
  func stopTracking() { screens = nil }

  /// Marks the screen holding `node`, when a tracker looks.
  func touch(_ node: ModuleNode) {
    guard screens != nil else { return }
    let root = node.root
    screens?[root.id] = root
  }

  /// The screens marked since the last call, by id; marking goes on.
  func take() -> [Int: ModuleNode] {
    defer { screens = [:] }
    return screens ?? [:]
  }
}
