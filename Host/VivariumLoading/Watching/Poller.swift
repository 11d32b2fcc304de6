/// Calls `look` on the main actor every `interval` between ``start()`` and
/// ``stop()``: the clock of ``PluginWatcher`` and ``PackageBuilder``.
@MainActor
final class Poller {
  let interval: Duration
  private let look: @MainActor () -> Void
  private var task: Task<Void, Never>?

  init(interval: Duration, look: @escaping @MainActor () -> Void) {
    self.interval = interval
    self.look = look
  }

  func start() {
    task?.cancel()
    task = Task { [weak self, interval] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        self?.look()
      }
    }
  }

  func stop() {
    task?.cancel()
    task = nil
  }
}
