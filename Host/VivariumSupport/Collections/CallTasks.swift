/// The tasks answering numbered calls (a plugin process's calls in the
/// host, the host's calls to a process's providers), each started at once,
/// in the caller's turn (`Task.immediate`), so that work that finishes
/// before its first `await` answers with no hop and is never stored.
@MainActor
package final class CallTasks {
  /// The calls under way.
  private var underWay: Set<UInt32> = []
  /// Their tasks, for those that went past their first `await`.
  private var tasks: [UInt32: Task<Void, Never>] = [:]

  package init() {}

  /// How many calls are under way.
  package var count: Int { underWay.count }

  /// Whether `call` is under way.
  package func contains(_ call: UInt32) -> Bool { underWay.contains(call) }

  /// Runs `work` for `call` now, and gives what it returns to `answer`,
  /// unless the call was dropped meanwhile.
  package func start<Answer: Sendable>(
    _ call: UInt32, _ work: @escaping @MainActor () async -> Answer,
    answer: @escaping @MainActor (Answer) -> Void
  ) {
    underWay.insert(call)
    let task = Task.immediate { @MainActor [weak self] in
      let result = await work()
      guard let self, self.underWay.remove(call) != nil else { return }
      self.tasks[call] = nil
      answer(result)
    }
    if underWay.contains(call) { tasks[call] = task }
  }

  /// Cancels `call`'s work, which still answers (as cancelled, as it sees fit).
  package func cancel(_ call: UInt32) {
    tasks[call]?.cancel()
  }

  /// Cancels `call`'s work and drops it: it does not answer. False when
  /// it was not under way.
  @discardableResult
  package func drop(_ call: UInt32) -> Bool {
    guard underWay.remove(call) != nil else { return false }
    tasks.removeValue(forKey: call)?.cancel()
    return true
  }

  /// Cancels and drops every call.
  package func dropAll() {
    for task in tasks.values { task.cancel() }
    tasks.removeAll()
    underWay.removeAll()
  }
}
