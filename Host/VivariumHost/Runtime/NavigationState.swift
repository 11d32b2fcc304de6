import Foundation
import ViperKit

/// Where the person is: every navigation layer (the main stack, then each
/// modal presentation), each a stack of screens, each screen with the tab
/// shown in each of its tabs slots, down through its children. Saved in the
/// data directory so that the next `vivarium run` resumes there.
public struct NavigationState: Codable, Equatable, Sendable {
  /// Bumped when the format changes; another version is not read.
  public static let version = 1

  /// One module: how it was opened, and its slots.
  public struct Screen: Codable, Equatable, Sendable {
    /// The URN it was opened with.
    public var urn: String
    /// Arguments given apart from the URN (`--arg`), as name and value.
    public var arguments: [[String]]
    /// Its slots that hold children.
    public var slots: [Slot]
  }

  /// A slot of a screen: its children, and which one is shown.
  public struct Slot: Codable, Equatable, Sendable {
    /// The slot's name.
    public var name: String
    /// The child shown, for a tabs slot.
    public var selected: Int
    /// Its children, in order.
    public var children: [Screen]
  }

  /// The format's version.
  public var version = NavigationState.version
  /// The layers, main stack first.
  public var layers: [[Screen]]

  /// Whether nothing is shown.
  public var isEmpty: Bool { layers.allSatisfy(\.isEmpty) }
}

extension HostRuntime {
  /// What is shown now, as it would be saved.
  public var navigationState: NavigationState {
    func screen(_ node: ModuleNode) -> NavigationState.Screen {
      NavigationState.Screen(
        urn: node.openedWith.urn, arguments: node.openedWith.arguments.map { [$0.name, $0.value] },
        slots: node.slots.filter { !$0.children.isEmpty }.map { slot in
          NavigationState.Slot(name: slot.spec.name, selected: slot.selected, children: slot.children.map(screen))
        })
    }
    return NavigationState(layers: layers.map { $0.map(screen) })
  }

  /// Rebuilds `state`: each screen from its URN, on top of the one before,
  /// each tabs slot showing the tab it showed. A screen that cannot be built
  /// any more (its plugin gone, its URN no longer routed, a guard refusing
  /// it) ends the restoring there: what was built before it stays. Returns
  /// what could not be restored, one sentence each; nothing is shown when
  /// not even the first screen could be built.
  public func restore(_ state: NavigationState) -> [String] {
    guard layers.isEmpty else { return ["the app already shows a screen; nothing was restored"] }
    var lost: [String] = []
    restoring: for (layerIndex, layer) in state.layers.enumerated() {
      for (index, saved) in layer.enumerated() {
        let node: ModuleNode
        do {
          node = try buildAttached(
            saved.urn,
            arguments: saved.arguments.compactMap { pair in
              pair.count == 2 ? (name: pair[0], value: pair[1]) : nil
            })
        } catch {
          let remaining = state.layers[layerIndex...].enumerated().reduce(0) { sum, item in
            sum + (item.offset == 0 ? layer.count - index : item.element.count)
          }
          lost.append(
            "the saved screen '\(Self.clipped(saved.urn))' could not be built again (\(error.message)); "
              + "resumed at the screen under it, without the \(Plural.count(remaining, "saved screen")) from there up")
          break restoring
        }
        if index == 0 {
          layers.append([node])
        } else {
          node.opener = layers[layerIndex][index - 1]
          layers[layerIndex].append(node)
        }
        lost += select(saved, in: node)
      }
    }
    if let shown = top { appear(shown) }
    return lost
  }

  /// Shows, in each tabs slot of `node` and its children, the tab `saved` showed.
  private func select(_ saved: NavigationState.Screen, in node: ModuleNode) -> [String] {
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
        lost += select(savedChild, in: child)
      }
    }
    return lost
  }
}
