import ViperKit
import ViperKitHosting

/// Restoration states: what each module keeps (``StateRestoring``), read
/// when the screens are saved and handed back when a module is built again.
extension HostRuntime {
  /// The restoration state `node`'s module keeps now, as JSON; nil for none.
  /// A module in a plugin process sent it after its last change. One that
  /// cannot be read is reported once per reason, and nothing is kept.
  func restorationState(of node: ModuleNode) -> String? {
    let state: String?
    let failure: String?
    if let remote = node.remote {
      (state, failure) = (remote.restorationState, remote.restorationFailure)
    } else if let module = node.module {
      do throws(Restoration.Failure) {
        (state, failure) = (try Restoration.state(of: module), nil)
      } catch {
        (state, failure) = (nil, error.message)
      }
    } else {
      return nil
    }
    if let failure, failure != node.stateFailure {
      report(node, "its state cannot be kept for the next start: \(failure)")
    }
    node.stateFailure = failure
    return state
  }
}

/// The saved screens of the modules being attached, by node id: a child
/// they embed while attaching takes its restoration state from the saved
/// child in its place. Forgotten when the requests of the attach have been
/// carried out.
@MainActor
final class RestorationInProgress {
  private var screens: [Int: NavigationState.Screen] = [:]

  /// `node`, being attached, restores `saved`: its children too.
  func restore(_ node: ModuleNode, from saved: NavigationState.Screen) {
    screens[node.id] = saved
  }

  /// The saved child at `position` of `slot` of `parent`, being attached:
  /// what a child embedded there takes back; nil when none was saved.
  func savedChild(of parent: ModuleNode, inSlot slot: String, at position: Int) -> NavigationState.Screen? {
    screens[parent.id]?.slots.first { $0.name == slot }?.children.dropFirst(position).first
  }

  /// Forgets every saved screen: the attaches are done.
  func forget() {
    screens.removeAll()
  }
}
