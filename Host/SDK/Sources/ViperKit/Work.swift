/// Starts work that takes time (fetching, saving, waiting) for one module,
/// tied to the module's life. Given to each module in ``ModuleContext/work``;
/// conformers are the host and test harnesses.
///
/// The host cancels every piece of work a module started when the module
/// detaches. The operation runs on the main actor, so after each `await` it
/// is back where it may tell the presenter, which draws at once: the host
/// redraws the screen without waiting for the person. Work that throws is
/// reported to the person as a problem of the module, naming the work;
/// cancelled work is logged. Nothing is lost.
///
/// ```swift
/// work.start("load the feed") { [weak self] in
///   let posts = try await api.posts()
///   self?.presenter?.present(posts)
/// }
/// ```
///
/// Scripted sessions wait, after each command, until no module has work in
/// flight (sleeping on ``WallClock`` does not count: time only passes when the
/// script says so).
@MainActor
public protocol ModuleWork: AnyObject {
  /// Starts `operation` now, named `name` in reports, and returns a handle to
  /// cancel it. The operation should capture role objects weakly.
  @discardableResult
  func start(_ name: String, _ operation: @escaping @MainActor () async throws -> Void) -> WorkHandle
}

extension ModuleWork {
  /// Runs `tick` every `seconds` on `clock` (first after `seconds`), until the
  /// handle is cancelled or the module detaches. A tick that throws ends the
  /// timer and is reported like any failed work. Between ticks the timer
  /// waits (``WallClock/wait(for:)``): only a tick is work in flight.
  @discardableResult
  public func every(
    _ seconds: Double, on clock: any WallClock, _ name: String, _ tick: @escaping @MainActor () async throws -> Void
  ) -> WorkHandle {
    start(name) {
      while true {
        try await clock.wait(for: seconds)
        try await tick()
      }
    }
  }
}

/// One piece of work a module started with ``ModuleWork/start(_:_:)``.
public struct WorkHandle: Hashable, Sendable {
  private let task: Task<Void, Never>

  /// Wraps the task running the work; the host and test harnesses do.
  public init(_ task: Task<Void, Never>) {
    self.task = task
  }

  /// Cancels the work: its next `await` of a cancellable call throws
  /// `CancellationError`. The host logs it; nothing is shown to the person.
  public func cancel() { task.cancel() }

  /// Whether ``cancel()`` was called or the module detached.
  public var isCancelled: Bool { task.isCancelled }

  /// Waits until the work has ended, however it ended.
  public func finished() async { await task.value }
}
