import ViperKit

/// Runs the work modules start (``ModuleWork``) on the main actor: keeps
/// count of what is in flight, cancels a module's work when it detaches,
/// reports what failed or was cancelled, and lets a session wait until every
/// module is idle. One per host or test harness.
@MainActor
public final class WorkScheduler {
  /// How a piece of work ended, when it did not simply finish.
  public struct Report: Sendable, Equatable, CustomStringConvertible {
    /// How it ended.
    public enum Outcome: Sendable, Equatable {
      /// It threw this error (described).
      case failed(String)
      /// It was cancelled: by the module, or because the module detached.
      case cancelled
    }
    /// The URN of the module whose work it was.
    public let module: String
    /// Who the module belongs to, as its scope was given it
    /// (``WorkScheduler/scope(for:owner:)``): its plugin, for a host.
    public var owner: String? = nil
    /// The name the module gave the work.
    public let work: String
    /// How it ended.
    public let outcome: Outcome

    /// `work 'NAME' failed: ERROR` or `work 'NAME' was cancelled`.
    public var description: String {
      switch outcome {
      case .failed(let error): "work '\(work)' failed: \(error)"
      case .cancelled: "work '\(work)' was cancelled"
      }
    }
  }

  private struct Entry {
    let scope: ObjectIdentifier
    let module: String
    let name: String
    let task: Task<Void, Never>
    /// Cancelled by ``cancelAll(of:)``, and not ended yet.
    var cancelled = false
  }

  /// The clock whose sleepers count as idle.
  public let clock: ModuleClock
  /// Called when work fails or is cancelled.
  public var onReport: (Report) -> Void = { _ in }
  /// Called after each piece of work ends, however it ended: where a host
  /// checks what the work left (a module that drew nothing) and redraws.
  /// A job of ``perform(_:)`` does what it needs itself.
  public var onWorkEnded: () -> Void = {}

  private var running: [Int: Entry] = [:]
  /// How many entries of ``running`` each scope has: a module's work is
  /// looked up, not searched for, however much work other modules run.
  private var runningByScope: [ObjectIdentifier: Int] = [:]
  private var nextID = 0
  private var pendingJobs = 0
  /// Calls into modules that run elsewhere (a plugin process), by id, until
  /// they are answered: in flight as work is.
  private var calls: [Int: (module: String, name: String)] = [:]

  /// A scheduler whose work sleeps on `clock`.
  public init(clock: ModuleClock) {
    self.clock = clock
    clock.sleepBegan = { [weak self] in self?.wakeWaitersIfIdle() }
  }

  /// The ``ModuleWork`` to give the module at `urn`, belonging to `owner`
  /// (its plugin, for a host), which the reports of its work name.
  public func scope(for urn: String, owner: String? = nil) -> WorkScope {
    WorkScope(scheduler: self, module: urn, owner: owner)
  }

  /// Whether nothing is in flight: every piece of work has ended or is
  /// sleeping on the clock, no job is pending and no call is under way.
  public var isIdle: Bool {
    // Scope by scope: a sleep outside work (a plugin process's, or a
    // module's own task) must not stand in for work that is running.
    // Work cancelled may still count as asleep until its task runs again
    // to end: it is in flight until it has.
    isQuiet && cancelling == 0 && runningByScope.allSatisfy { clock.sleepingAll(in: $0.key) >= $0.value }
  }

  /// `URN: 'work'` for each piece of work still running, sorted.
  public var inFlight: [String] {
    (running.values.map { "\($0.module): '\($0.name)'" } + calls.values.map { "\($0.module): \($0.name)" }).sorted()
  }

  /// Counts a call into the module at `module` that runs elsewhere (`name`
  /// says what it is: `a tap on 'save'`) as in flight until the returned
  /// closure is called: a session waits for it, and the spinner turns.
  /// Calling the closure again does nothing.
  public func beginCall(module: String, _ name: String) -> () -> Void {
    let id = nextID
    nextID += 1
    calls[id] = (module, name)
    return { [weak self] in
      guard let self, self.calls.removeValue(forKey: id) != nil else { return }
      self.wakeWaitersIfIdle()
    }
  }

  /// Whether no call into a module that runs elsewhere is under way and no
  /// job is pending: what the host asked of its modules has been carried
  /// out, while their work may still run.
  public var isQuiet: Bool { pendingJobs == 0 && calls.isEmpty }

  /// Waits until ``isIdle`` (or, with `work` false, ``isQuiet``) or until
  /// `limit` seconds of real time have passed; returns false on the time
  /// limit.
  public func settle(limit: Double, work: Bool = true) async -> Bool {
    let done = { [unowned self] in work ? self.isIdle : self.isQuiet }
    guard !done() else { return true }
    let due = ContinuousClock.now + .seconds(limit.isNaN ? 0 : min(max(0, limit), 1e9))
    while !done(), ContinuousClock.now < due {
      await withCheckedContinuation { waiter in
        waiters.append((due, waiter))
        setTimer(for: due)
      }
    }
    return done()
  }

  /// Those waiting in ``settle(limit:work:)``, and when each gives up.
  private var waiters: [(due: ContinuousClock.Instant, waiter: CheckedContinuation<Void, Never>)] = []
  /// Wakes the waiters whose time is up: one timer for all of them, set for
  /// the earliest, and not cancelled when they are woken sooner, so that a
  /// wait that ends at once (as a call's answer does) sets no timer of its own.
  private var timer: (due: ContinuousClock.Instant, task: Task<Void, Never>)?

  private func setTimer(for due: ContinuousClock.Instant) {
    if let timer, timer.due <= due { return }
    timer?.task.cancel()
    timer = (
      due,
      Task { @MainActor [weak self] in
        try? await Task.sleep(until: due, clock: .continuous)
        guard !Task.isCancelled, let self else { return }
        self.timer = nil
        let now = ContinuousClock.now
        let late = self.waiters.filter { $0.due <= now }
        self.waiters.removeAll { $0.due <= now }
        for (_, waiter) in late { waiter.resume() }
        if let next = self.waiters.map(\.due).min() { self.setTimer(for: next) }
      }
    )
  }

  private func resumeWaiters() {
    let waiting = waiters
    waiters.removeAll()
    for (_, waiter) in waiting { waiter.resume() }
  }

  private func wakeWaitersIfIdle() {
    if isQuiet { resumeWaiters() }
  }

  /// Runs `job` on the main actor once the code running now has reached
  /// its next `await`, counting it as in flight until it has run: how a
  /// request a module makes from its work is carried out then.
  public func perform(_ job: @escaping @MainActor () -> Void) {
    pendingJobs += 1
    Task { @MainActor in
      job()
      pendingJobs -= 1
      wakeWaitersIfIdle()
    }
  }

  fileprivate func start(
    _ scope: WorkScope, _ name: String, _ operation: @escaping @MainActor () async throws -> Void
  ) -> WorkHandle {
    let id = nextID
    nextID += 1
    let module = scope.module
    let owner = scope.owner
    let key = ObjectIdentifier(scope)
    let task = Task { @MainActor in
      do {
        try await ModuleClock.$scope.withValue(key) { try await operation() }
      } catch {
        let cancelled = error is CancellationError || Task.isCancelled
        onReport(
          Report(module: module, owner: owner, work: name, outcome: cancelled ? .cancelled : .failed("\(error)")))
      }
      // The task keeps `scope` alive, so its key names no other scope meanwhile.
      withExtendedLifetime(scope) {
        if let ended = running.removeValue(forKey: id) {
          if ended.cancelled { cancelling -= 1 }
          runningByScope[key, default: 1] -= 1
          if runningByScope[key] == 0 { runningByScope[key] = nil }
        }
      }
      onWorkEnded()
      wakeWaitersIfIdle()
    }
    running[id] = Entry(scope: key, module: module, name: name, task: task)
    runningByScope[key, default: 0] += 1
    return WorkHandle(task)
  }

  fileprivate func hasWork(of scope: WorkScope) -> Bool {
    runningByScope[ObjectIdentifier(scope)] != nil
  }

  fileprivate func isActive(_ scope: WorkScope) -> Bool {
    let id = ObjectIdentifier(scope)
    return runningByScope[id, default: 0] > clock.sleeping(in: id)
  }

  /// Whether any module's work is in flight rather than waiting (see
  /// ``WorkScope/isActive``): where the app's spinner turns. Costs the same
  /// however many modules are alive.
  public var isAnyActive: Bool { !calls.isEmpty || running.count > clock.waitingSleepers }

  fileprivate func cancelAll(of scope: WorkScope) {
    for (id, entry) in running where entry.scope == ObjectIdentifier(scope) && !entry.cancelled {
      running[id]?.cancelled = true
      cancelling += 1
      entry.task.cancel()
    }
  }

  /// How many entries of ``running`` were cancelled and have not ended.
  private var cancelling = 0
}

/// One module's ``ModuleWork``: starts its work on the scheduler, and cancels
/// all of it at ``cancelAll()`` (the host calls it when the module detaches).
@MainActor
public final class WorkScope: ModuleWork {
  private weak var scheduler: WorkScheduler?
  /// The module's URN.
  public let module: String
  /// Who the module belongs to (its plugin, for a host), or nil.
  public let owner: String?

  init(scheduler: WorkScheduler, module: String, owner: String?) {
    self.scheduler = scheduler
    self.module = module
    self.owner = owner
  }

  /// Starts `operation` on the scheduler; after ``cancelAll()``, work starts
  /// cancelled.
  @discardableResult
  public func start(_ name: String, _ operation: @escaping @MainActor () async throws -> Void) -> WorkHandle {
    guard let scheduler, !ended else {
      let task = Task<Void, Never> {}
      task.cancel()
      return WorkHandle(task)
    }
    return scheduler.start(self, name, operation)
  }

  private var ended = false

  /// Counts a call into the module that runs elsewhere as in flight until
  /// the returned closure is called (``WorkScheduler/beginCall(module:_:)``).
  public func beginCall(_ name: String) -> () -> Void {
    scheduler?.beginCall(module: module, name) ?? {}
  }

  /// Whether work the module started is still running (or sleeping).
  public var isBusy: Bool { scheduler?.hasWork(of: self) ?? false }

  /// Whether work the module started is in flight rather than waiting: what
  /// a spinner shows. Work in a sleep of ``ModuleClock/waitingSleep`` or
  /// longer on the clock (a timer between its ticks) is waiting.
  public var isActive: Bool { scheduler?.isActive(self) ?? false }

  /// Cancels every piece of work the module started, and any it starts later.
  public func cancelAll() {
    ended = true
    scheduler?.cancelAll(of: self)
  }
}
