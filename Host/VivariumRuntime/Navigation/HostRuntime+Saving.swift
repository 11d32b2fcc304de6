/// Saving what a session shows, and showing it again: how `vivarium run`
/// resumes the last session on its plugins, and `vivarium serve` each tab's.
extension HostRuntime {
  /// Shows the screens `store` saved; returns what could not be shown
  /// (logged too), empty when nothing was saved.
  package func restore(from store: NavigationStore) async -> [String] {
    var lost: [String] = []
    switch store.load() {
    case .success(let state?): lost = (store.damage.map { [$0] } ?? []) + (await restore(state))
    case .success(nil): break
    case .failure(let error): lost = [error.description]
    }
    for warning in lost { services.logLine(.warning, module: "host", warning) }
    return lost
  }

  /// Saves what is shown to `store` whenever it changes, from now on: each
  /// change what it changed (the journal), not everything shown. A failure
  /// to save is logged once.
  package func keepSaving(to store: NavigationStore) {
    var reported = false
    let tracker = NavigationChangeTracker(self)
    onNavigationChanged = { [weak self] in
      guard let self else { return }
      do {
        try store.record(tracker.takeChanges()) { self.navigationState }
      } catch {
        // Once: the person is told in the log, not on every change.
        if !reported { services.logLine(.error, module: "host", "\(error)") }
        reported = true
      }
    }
  }
}
