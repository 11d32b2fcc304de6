import VivariumSupport

/// Whose turn it is to change what is shown: the one ordered mailbox of
/// the runtime. Everything that changes the navigation layers (a person's
/// command, a module's request, a reload, a restart) runs in a turn, and
/// turns run one at a time, in the order they were asked for. A turn may
/// wait for a plugin process (building a module there); the host's main
/// actor goes on meanwhile (keys, drawing, other modules' calls), but no
/// other turn starts until it ends, so nothing changes the layers under it.
@MainActor
final class NavigationTurn {
  /// Whether a turn is under way (or handed to the next waiting one).
  private(set) var isHeld = false
  /// Those waiting for their turn, oldest first.
  private var waiting = FIFO<CheckedContinuation<Void, Never>>()

  /// Whether the turn under way waited for a plugin process.
  private var suspended = false

  /// Waits for the turn: at once, without suspending, when none is under
  /// way. True when it had to wait for another.
  func acquire() async -> Bool {
    guard isHeld else {
      isHeld = true
      return false
    }
    await withCheckedContinuation { waiting.append($0) }
    return true
  }

  /// The turn under way is about to wait for a plugin process: what it
  /// changes shows after the call that started it has returned.
  func suspends() { suspended = true }

  /// Whether the turn under way waited for a plugin process; forgotten.
  func takeSuspended() -> Bool {
    defer { suspended = false }
    return suspended
  }

  /// Ends the turn, handing it to the oldest waiting one.
  func release() {
    if let next = waiting.popFirst() {
      next.resume()
    } else {
      isHeld = false
    }
  }
}
