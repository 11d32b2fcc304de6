import Glibc
import ViperKit

/// The ``WallClock`` a host hands its modules: real time, or virtual time
/// that stands still until ``advance(by:settle:)`` moves it (the idea of
/// swift-clocks' test clock), so that modules which wait or refresh on a
/// timer run in scripts and tests without real waiting and always the same.
///
/// It counts the sleepers, so that ``WorkScheduler`` can tell work that waits
/// for time (idle) from work in flight.
@MainActor
public final class ModuleClock: WallClock {
  /// Real time, or virtual time starting at a given instant.
  public enum Mode: Sendable, Equatable {
    /// The system clock; sleeping really waits.
    case real
    /// Virtual time, starting at `start` seconds since 1970.
    case virtual(start: Double)
  }

  private struct Sleeper {
    let id: Int
    let deadline: Double
    let continuation: CheckedContinuation<Void, any Error>
    /// The work scope it sleeps in, if any.
    let scope: ObjectIdentifier?
  }

  /// Whether time is real or virtual.
  public let mode: Mode
  private var virtualNow: Double {
    didSet {
      guard virtualNow != oldValue else { return }
      observers.removeAll { $0.owner == nil }
      for observer in observers { observer.moved(virtualNow) }
    }
  }
  /// Who is told when virtual time moves (``observe(by:_:)``), while they live.
  private var observers: [Observer] = []

  private struct Observer {
    weak var owner: AnyObject?
    let moved: @MainActor (Double) -> Void
  }
  private var sleepers: [Sleeper] = []
  private var nextID = 0
  private var realSleepers = 0
  /// Called when a sleep begins: work that sleeps is no longer in flight.
  var sleepBegan: () -> Void = {}
  /// Sleeps under way per work scope (see ``scope``).
  private var sleepersByScope: [ObjectIdentifier: Int] = [:]
  /// Waiting sleeps under way, of every scope together.
  private(set) var waitingSleepers = 0
  /// Sleeps under way per work scope, waiting or not: a scope whose every
  /// piece of work sleeps is idle, whatever sleeps outside work.
  private var allSleepersByScope: [ObjectIdentifier: Int] = [:]

  /// The work scope the current task runs for, set by ``WorkScheduler``
  /// around each piece of work, so sleeps are counted per module.
  @TaskLocal static var scope: ObjectIdentifier?

  /// A clock in `mode`.
  public init(_ mode: Mode) {
    self.mode = mode
    if case .virtual(let start) = mode { virtualNow = start } else { virtualNow = 0 }
  }

  /// Has `moved` called with the new time each time virtual time moves,
  /// for as long as `owner` lives (a real clock never calls it): how a copy
  /// of the clock elsewhere (a plugin process's) is kept current. Replaces
  /// what `owner` observed before.
  public func observe(by owner: AnyObject, _ moved: @escaping @MainActor (Double) -> Void) {
    observers.removeAll { $0.owner == nil || $0.owner === owner }
    observers.append(Observer(owner: owner, moved: moved))
  }

  /// Now, in seconds since 1970.
  public func now() -> Double {
    switch mode {
    case .real: Self.systemNow()
    case .virtual: virtualNow
    }
  }

  /// Now on the system's real-time clock, in seconds since 1970: what a
  /// real clock says, wherever it is read.
  public nonisolated static func systemNow() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// Sleeps at least this long (seconds) are waiting, like a timer between
  /// its ticks; shorter ones (a simulated network delay, a debounce) are
  /// part of work in flight. See ``WorkScope/isActive``.
  public static let waitingSleep = 5.0

  /// How many waiting sleeps (``waitingSleep`` or longer) the work of `scope` has under way.
  func sleeping(in scope: ObjectIdentifier) -> Int { sleepersByScope[scope] ?? 0 }

  /// How many sleeps, waiting or not, the work of `scope` has under way.
  func sleepingAll(in scope: ObjectIdentifier) -> Int { allSleepersByScope[scope] ?? 0 }

  private func beginSleep(in scope: ObjectIdentifier?) {
    if let scope { allSleepersByScope[scope, default: 0] += 1 }
  }

  private func endSleep(in scope: ObjectIdentifier?) {
    guard let scope else { return }
    allSleepersByScope[scope, default: 1] -= 1
    if allSleepersByScope[scope] == 0 { allSleepersByScope[scope] = nil }
  }

  /// How many sleeps are under way.
  public var sleeping: Int { mode == .real ? realSleepers : sleepers.count }

  /// Returns once `seconds` have passed; throws `CancellationError` if the
  /// calling task is cancelled first.
  public func sleep(for seconds: Double) async throws {
    // A long sleep is a timer or a poll waiting, not work in flight.
    try await sleep(for: seconds, waiting: seconds >= ModuleClock.waitingSleep)
  }

  /// Returns once `seconds` have passed, for the host's own timers (a
  /// business service call's deadline): never counted as a sleep of the
  /// work that started it, which stays in flight meanwhile.
  public func sleepOutsideWork(for seconds: Double) async throws {
    try await ModuleClock.$scope.withValue(nil) { try await sleep(for: seconds, waiting: false) }
  }

  /// Returns once `seconds` have passed, counted as waiting whatever their
  /// length: a timer between its ticks.
  public func wait(for seconds: Double) async throws {
    try await sleep(for: seconds, waiting: true)
  }

  private func sleep(for seconds: Double, waiting: Bool) async throws {
    try Task.checkCancellation()
    let inScope = ModuleClock.scope
    let scope = waiting ? inScope : nil
    if let scope {
      sleepersByScope[scope, default: 0] += 1
      waitingSleepers += 1
    }
    defer {
      if let scope {
        sleepersByScope[scope, default: 1] -= 1
        waitingSleepers -= 1
        if sleepersByScope[scope] == 0 { sleepersByScope[scope] = nil }
      }
    }
    if case .real = mode {
      realSleepers += 1
      beginSleep(in: inScope)
      sleepBegan()
      defer {
        realSleepers -= 1
        endSleep(in: inScope)
      }
      try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
      return
    }
    let id = nextID
    nextID += 1
    let deadline = virtualNow + max(0, seconds)
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation, scope: inScope))
        beginSleep(in: inScope)
        sleepBegan()
      }
    } onCancel: {
      Task { @MainActor in self.wake(id, with: CancellationError()) }
    }
    // Cancelled while waking: the work must not go on as if time had passed.
    try Task.checkCancellation()
  }

  /// Moves virtual time forward by `seconds`: each sleeper whose deadline
  /// falls within is woken in deadline order (ties in the order they began),
  /// with time set to its deadline, and `settle` runs after each so the work
  /// it wakes finishes before time moves on. Does nothing on a real clock.
  public func advance(by seconds: Double, settle: () async -> Void) async {
    guard case .virtual = mode else { return }
    // Work started just before must reach its sleep first.
    await settle()
    let target = virtualNow + max(0, seconds)
    while let next = sleepers.filter({ $0.deadline <= target }).min(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) })
    {
      virtualNow = max(virtualNow, next.deadline)
      wake(next.id, with: nil)
      await settle()
    }
    virtualNow = target
  }

  private func wake(_ id: Int, with error: (any Error)?) {
    guard let index = sleepers.firstIndex(where: { $0.id == id }) else { return }
    let sleeper = sleepers.remove(at: index)
    // Its work is in flight from now, before its task runs again.
    endSleep(in: sleeper.scope)
    if let error { sleeper.continuation.resume(throwing: error) } else { sleeper.continuation.resume() }
  }
}
