import Synchronization

/// Process-wide record of the modules built through this `libViperKit.so`.
///
/// Every ``Module`` a plugin creates is recorded here, so the host can tell
/// how many modules were built and which of their role objects are still
/// alive, whatever plugin built them. There is one census per process because
/// there is one ViperKit: a plugin linking a private copy would be invisible.
public enum ModuleCensus {
  private struct State {
    var built = 0
    var roles: [RoleReference] = []
    /// Dead references are dropped when `roles` reaches this count: twice
    /// what survived the last time, so recording stays linear overall
    /// however many modules are alive at once.
    var pruneAt = 64
  }

  private static let state = Mutex(State())

  /// How many modules have been built in this process.
  public static var modulesBuilt: Int { state.withLock { $0.built } }

  /// Role objects of every module built so far that are still alive.
  public static func liveRoles() -> [RoleReference] {
    state.withLock { state in state.roles.filter(\.isAlive) }
  }

  static func record(_ roles: [RoleReference]) {
    state.withLock { state in
      state.built += 1
      state.roles.append(contentsOf: roles)
      if state.roles.count >= state.pruneAt {
        state.roles.removeAll { !$0.isAlive }
        state.pruneAt = max(64, 2 * state.roles.count)
      }
    }
  }
}
