import Foundation
import ViperKit
import VivariumSupport

/// Where the person is: every navigation layer (the main stack, then each
/// modal presentation), each a stack of screens, each screen with the tab
/// shown in each of its tabs slots and each module's restoration state, down
/// through its children. Saved in the data directory so that the next
/// `vivarium run` resumes there.
package struct NavigationState: Codable, Equatable, Sendable {
  /// Bumped when the format changes; another version is not read.
  package static let version = 1

  /// One module: how it was opened, what it keeps, and its slots.
  package struct Screen: Codable, Equatable, Sendable {
    /// The URN it was opened with.
    package var urn: String
    /// Arguments given apart from the URN (`--arg`), as name and value.
    package var arguments: [[String]]
    /// Its slots that hold children.
    package var slots: [Slot]
    /// Its restoration state (``ViperKit/StateRestoring``), as JSON.
    package var state: String?
    /// For a screen on a stack: the module that opened it (and receives its
    /// result), as the path from the screen under it through slots and
    /// children; empty for that screen itself, nil for none.
    package var openedBy: [Place]?

    /// A screen opened from `urn`.
    package init(
      urn: String, arguments: [[String]] = [], slots: [Slot] = [], state: String? = nil, openedBy: [Place]? = nil
    ) {
      self.urn = urn
      self.arguments = arguments
      self.slots = slots
      self.state = state
      self.openedBy = openedBy
    }
  }

  /// A slot of a screen: its children, and which one is shown.
  package struct Slot: Codable, Equatable, Sendable {
    /// The slot's name.
    package var name: String
    /// The child shown, for a tabs slot.
    package var selected: Int
    /// Its children, in order.
    package var children: [Screen]
  }

  /// One step down a module's tree: the child at `index` of slot `slot`.
  package struct Place: Codable, Equatable, Sendable {
    /// The slot's name.
    package var slot: String
    /// The child's position in it.
    package var index: Int
  }

  /// The format's version.
  package var version = NavigationState.version
  /// The layers, main stack first.
  package var layers: [[Screen]]

  /// Whether nothing is shown.
  package var isEmpty: Bool { layers.allSatisfy(\.isEmpty) }
}

extension HostRuntime {
  /// What is shown now, as it would be saved.
  package var navigationState: NavigationState {
    var below: ModuleNode?
    return NavigationState(
      layers: layers.map { layer in
        layer.map { node in
          var saved = savedScreen(node)
          if let below, let opener = node.opener { saved.openedBy = below.path(to: opener) }
          below = node
          return saved
        }
      })
  }

  /// `node` and its children as they would be saved.
  func savedScreen(_ node: ModuleNode) -> NavigationState.Screen {
    NavigationState.Screen(
      urn: node.openedWith.urn, arguments: node.openedWith.arguments.map { [$0.name, $0.value] },
      slots: node.slots.filter { !$0.children.isEmpty }.map { slot in
        NavigationState.Slot(name: slot.spec.name, selected: slot.selected, children: slot.children.map(savedScreen))
      }, state: restorationState(of: node))
  }

  /// Rebuilds `state`: each screen from its URN and restoration state, on
  /// top of the one before, opened by the module that opened it, each tabs
  /// slot showing the tab it showed. A screen that cannot be built any more
  /// (its plugin gone, its URN no longer routed, a guard refusing it) ends
  /// the restoring there: what was built before it stays. Returns what could
  /// not be restored, one sentence each; nothing is shown when not even the
  /// first screen could be built.
  package func restore(_ state: NavigationState) async -> [String] {
    await inTurn { await restoreInTurn(state) }
  }

  private func restoreInTurn(_ state: NavigationState) async -> [String] {
    guard layers.isEmpty else { return ["the app already shows a screen; nothing was restored"] }
    var lost: [String] = []
    var below: ModuleNode?
    restoring: for (layerIndex, layer) in state.layers.enumerated() {
      for (index, saved) in layer.enumerated() {
        let node: ModuleNode
        do {
          node = try await buildAttached(saved.urn, arguments: saved.arguments.pairs, restoring: saved)
        } catch {
          let remaining = state.layers[layerIndex...].enumerated().reduce(0) { sum, item in
            sum + (item.offset == 0 ? layer.count - index : item.element.count)
          }
          lost.append(
            "the saved screen '\(Self.clipped(saved.urn))' could not be built again (\(error.message)); "
              + "resumed at the screen under it, without the \(Plural.count(remaining, "saved screen")) from there up")
          break restoring
        }
        lost += node.takeRestoreFailures()
        if let below, let path = saved.openedBy { node.opener = below.node(at: path) ?? below }
        if index == 0 { navigation.present(node) } else { navigation.push(node, onLayer: layerIndex) }
        lost += selectTabs(saved, in: node)
        below = node
      }
    }
    if let shown = top { appear(shown) }
    return lost
  }

  /// Shows, in each tabs slot of `node` and its children, the tab `saved` showed.
  func selectTabs(_ saved: NavigationState.Screen, in node: ModuleNode) -> [String] {
    var lost: [String] = []
    for slot in saved.slots {
      guard let index = node.slotIndex(slot.name) else {
        lost.append("\(node.urn) has no slot '\(slot.name)' any more; its saved children were left out")
        continue
      }
      let children = node.slots[index].children
      if node.slots[index].spec.kind == .tabs, slot.selected != node.slots[index].selected {
        if children.indices.contains(slot.selected) {
          select(slot.selected, inSlot: index, of: node)
        } else {
          lost.append(
            "\(node.urn) shows \(children.count) tabs in '\(slot.name)', not tab \(slot.selected + 1); it shows the first"
          )
        }
      }
      for (child, savedChild) in zip(node.slots[index].children, slot.children) where child.urn == savedChild.urn {
        lost += selectTabs(savedChild, in: child)
      }
    }
    return lost
  }
}

extension [[String]] {
  /// Saved `[name, value]` pairs as arguments; anything else is left out.
  var pairs: [(name: String, value: String)] {
    compactMap { pair in pair.count == 2 ? (name: pair[0], value: pair[1]) : nil }
  }
}

extension ModuleNode {
  /// What kept this module or its children from taking back their
  /// restoration states, once.
  func takeRestoreFailures() -> [String] {
    var failures = restoreFailure.map { ["\(urn) was built from its URN alone: \($0)"] } ?? []
    restoreFailure = nil
    for child in allChildren { failures += child.takeRestoreFailures() }
    return failures
  }

  /// The path from this module down to `descendant` (empty for itself), or
  /// nil when it is not in this module's tree.
  func path(to descendant: ModuleNode) -> [NavigationState.Place]? {
    if descendant === self { return [] }
    for slot in slots {
      for (index, child) in slot.children.enumerated() {
        if let rest = child.path(to: descendant) {
          return [NavigationState.Place(slot: slot.spec.name, index: index)] + rest
        }
      }
    }
    return nil
  }

  /// The module at `path` below this one, if it is still there.
  func node(at path: [NavigationState.Place]) -> ModuleNode? {
    guard let step = path.first else { return self }
    guard let index = slotIndex(step.slot), slots[index].children.indices.contains(step.index) else { return nil }
    return slots[index].children[step.index].node(at: Array(path.dropFirst()))
  }
}
