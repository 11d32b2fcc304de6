import ViperKit
import VivariumWire

/// A piece of work running in a plugin process, mirrored in the host's
/// work for its module: it is in flight while the process runs it, sleeps
/// on the host's clock when the process's work sleeps (so virtual time and
/// the spinner behave as in one process), and ends as the process says.
@MainActor
final class RemoteWork {
  let id: UInt32
  /// Weak: a reload lets the process's supervisor go while work of its
  /// modules may still be waking from a sleep on the host's clock, and
  /// such work has no one left to tell.
  private weak var process: PluginSupervisor?
  private var queued: [Command] = []
  private var waiter: CheckedContinuation<Command, Never>?
  private var sleeper: (id: UInt32, task: Task<Void, any Error>)?

  private enum Command {
    case sleep(UInt32, Double, waiting: Bool)
    case ended(WireWorkOutcome)
  }

  init(id: UInt32, process: PluginSupervisor) {
    self.id = id
    self.process = process
  }

  /// The work in the process sleeps `seconds` as sleep `sleep`, or waits
  /// them between ticks of a timer.
  func sleep(_ sleep: UInt32, for seconds: Double, waiting: Bool) { push(.sleep(sleep, seconds, waiting: waiting)) }

  /// The work in the process ended.
  func end(_ outcome: WireWorkOutcome) { push(.ended(outcome)) }

  /// The process cancelled sleep `sleep`.
  func cancelSleep(_ sleep: UInt32) {
    if sleeper?.id == sleep { sleeper?.task.cancel() }
    queued.removeAll {
      if case .sleep(sleep, _, _) = $0 { true } else { false }
    }
  }

  private func push(_ command: Command) {
    if let waiter {
      self.waiter = nil
      waiter.resume(returning: command)
    } else {
      queued.append(command)
    }
  }

  private func next() async -> Command {
    if !queued.isEmpty { return queued.removeFirst() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { waiter = $0 }
    } onCancel: {
      Task { @MainActor in self.end(.cancelled) }
    }
  }

  /// Runs in the host's work until the process says the work ended; throws
  /// as it failed there, or when the host cancels it (the module detached).
  func run(clock: (any WallClock)?) async throws {
    while true {
      switch await next() {
      case .sleep(let sleep, let seconds, let waiting):
        guard let clock else {
          process?.send(.woke(sleep: sleep, cancelled: true))
          continue
        }
        // The sleep runs in a task of its own (with this work's task-local
        // scope), so the process can cancel it alone.
        let task = Task { @MainActor in try await Self.sleep(on: clock, for: seconds, waiting: waiting) }
        sleeper = (sleep, task)
        let woke: Bool
        do {
          try await withTaskCancellationHandler {
            try await task.value
          } onCancel: {
            task.cancel()
          }
          woke = true
        } catch {
          woke = false
        }
        sleeper = nil
        process?.send(.woke(sleep: sleep, cancelled: !woke))
        try Task.checkCancellation()
      case .ended(.finished): return
      case .ended(.failed(let error)): throw RemoteWorkError(description: error)
      case .ended(.cancelled): throw CancellationError()
      }
    }
  }

  /// A sleep of the process outside any work it started.
  static func sleepOutsideWork(_ sleep: UInt32, for seconds: Double, waiting: Bool, process: PluginSupervisor) {
    guard let clock = process.clock else {
      process.send(.woke(sleep: sleep, cancelled: true))
      return
    }
    Task { @MainActor [weak process] in
      let woke = (try? await Self.sleep(on: clock, for: seconds, waiting: waiting)) != nil
      process?.send(.woke(sleep: sleep, cancelled: !woke))
    }
  }
}

extension RemoteWork {
  /// Sleeps on `clock` as the process's work did: waiting between ticks of
  /// a timer, or sleeping in work in flight.
  fileprivate static func sleep(on clock: any WallClock, for seconds: Double, waiting: Bool) async throws {
    if waiting { try await clock.wait(for: seconds) } else { try await clock.sleep(for: seconds) }
  }
}

/// The error work in a plugin process failed with, as it described it.
struct RemoteWorkError: Error, CustomStringConvertible {
  let description: String
}
