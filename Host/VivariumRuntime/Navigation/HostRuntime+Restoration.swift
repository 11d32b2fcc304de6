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
