// Business service calls while their provider is killed and reloaded
// (issue 29): every call answered or failed within its deadline, none
// answered by a build that had been replaced before the call was made.
import FaultyInterface
import Foundation
import Glibc
import ViperKit
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// How the calls of ``serviceChaos(vivarium:plugins:data:)`` ended.
struct ChaosCounts {
  var answered = 0
  var byKind: [String: Int] = [:]
  /// Answers from a process retired before the call was made.
  var stale = 0
  /// Calls that ended later than their deadline plus 50 ms.
  var late = 0
  /// The longest a call took, in ms.
  var longest = 0.0
}

/// 10,000 calls of the faulty service's echo from 3 consumers (two in the
/// host, ask:echo in FaultyFrame's process), 3 at a time
/// on the host's real clock, while the provider's process is killed every
/// 200 calls and a new build of it (the same file, in a new process) is
/// taken every 500, as `--watch` takes one.
@MainActor
func serviceChaos(vivarium: String, plugins: String, data: String) async {
  let total = 10_000
  let deadline = 1.0
  print(
    "A provider killed every 200 calls and reloaded every 500: \(total) calls of echo from 3 consumers (one in a plugin process), 3 at a time, deadline \(Int(deadline)) s"
  )
  let runtime = await makeRuntime(.outOfProcess, vivarium: vivarium, plugins: plugins, data: data, now: nil)
  defer { runtime.shutdown() }
  // Two consumers in the host, and one in a plugin process of its own:
  // FaultyFrame's ask:echo, tapped once per batch.
  let consumers = (1...2).map { number in
    ServiceHandle<FaultyService>(
      calls: runtime.host.serviceCalls(
        as: "chaos:consumer\(number)", in: "Consumer\(number)", requiring: [.required(FaultyService.self, "1.0"..<"2")])
    )
  }
  guard let path = runtime.catalog.loaded.first(where: { $0.name == "FaultyPlugin" })?.path else {
    fail("no Faulty plugin in \(plugins)")
  }
  do {
    try await runtime.open("ask:echo")
  } catch {
    fail("ask:echo: \(error)")
  }
  guard let consumerProcess = runtime.catalog.loaded.first(where: { $0.name == "FaultyFramePlugin" })?.runningProcess
  else { fail("FaultyFrame runs in no process of its own") }
  let consumerPID = consumerProcess.pid
  let screen = ScreenAnswers(runtime)
  var asked = 0
  let options = PluginProcessOptions(executable: vivarium)
  var counts = ChaosCounts()
  var retired: Set<pid_t> = []
  var provider: PluginSupervisor? { runtime.catalog.loaded.first { $0.path == path }?.runningProcess }
  let start = ContinuousClock.now
  for batch in stride(from: 0, to: total, by: 3) {
    if batch > 0, batch % 201 == 0, let pid = provider?.pid, pid > 0 { kill(pid, SIGKILL) }
    if batch > 0, batch % 501 == 0 {
      if let pid = provider?.pid { retired.insert(pid) }
      guard
        let outcome = await PluginDiscovery(commandLine: [path], environment: [:], executable: vivarium)
          .load(hosting: options).first
      else { fail("\(path) could not be loaded again") }
      let reload = await runtime.host.reload(outcome)
      if !reload.accepted { fail("the reload was refused: \(reload.problems)") }
    }
    let retiredBefore = retired
    asked += 1
    screen.expect(number: asked)
    let tapped = ContinuousClock.now
    do {
      try runtime.send(.tap(button: "ask"))
    } catch {
      fail("ask:echo: \(error)")
    }
    let calls = consumers.map { consumer in Task { @MainActor in await chaosCall(consumer, deadline: deadline) } }
    var ends: [ChaosCall] = []
    for call in calls { ends.append(await call.value) }
    ends.append(await screen.outcome(since: tapped))
    for end in ends {
      let (outcome, pid, ms) = (end.outcome, end.pid, end.milliseconds)
      if outcome == "answered" { counts.answered += 1 } else { counts.byKind[outcome, default: 0] += 1 }
      if let pid, retiredBefore.contains(pid) { counts.stale += 1 }
      if ms > deadline * 1000 + 50 { counts.late += 1 }
      counts.longest = max(counts.longest, ms)
    }
  }
  let took = ContinuousClock.now - start
  let failed = counts.byKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
  let calls = counts.answered + counts.byKind.values.reduce(0, +)
  print(
    "    \(calls) calls in \(took.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1)))): \(counts.answered) answered\(failed.isEmpty ? "" : ", " + failed)"
  )
  print(
    String(
      format:
        "    answered by a replaced build: %d (target 0: %@); later than the deadline + 50 ms: %d (target 0: %@); longest %.0f ms",
      counts.stale, counts.stale == 0 ? "met" : "MISSED", counts.late, counts.late == 0 ? "met" : "MISSED",
      counts.longest))
  let crashed = consumerProcess.pid != consumerPID || !consumerProcess.isRunning
  print(
    "    consumers: two in the host, and ask:echo in FaultyFrame's process, which \(crashed ? "CRASHED (target 0 crashes: MISSED)" : "never crashed (target 0 crashes: met)")"
  )
}

/// How the `number`th Ask of ask:echo ended, read off the screen: its
/// answer (`Answer N: echo: ping (from process PID)`) or its failure
/// (`Failed N (KIND): …`), timed from the tap to the draw that shows it.
@MainActor
final class ScreenAnswers {
  private let runtime: HostRuntime
  private let renderer = TextRenderer(width: 200)
  private var number = 0
  private var shown: (line: String, at: ContinuousClock.Instant)?
  private var waiter: CheckedContinuation<Void, Never>?

  init(_ runtime: HostRuntime) {
    self.runtime = runtime
    runtime.onScreenChanged = { [weak self] in self?.changed() }
  }

  func expect(number: Int) {
    (self.number, shown) = (number, nil)
  }

  private func changed() {
    guard shown == nil else { return }
    let lines = runtime.screen()?.lines(renderer) ?? []
    guard let line = lines.first(where: { $0.contains("Answer \(number): ") || $0.contains("Failed \(number) (") })
    else {
      return
    }
    shown = (line, .now)
    waiter?.resume()
    waiter = nil
  }

  /// The outcome, once the screen shows it (failing after 10 s).
  func outcome(since tapped: ContinuousClock.Instant) async -> ChaosCall {
    let timer = Task { @MainActor [weak self] in
      try? await Task.sleep(nanoseconds: 10_000_000_000)
      self?.waiter?.resume()
      self?.waiter = nil
    }
    defer { timer.cancel() }
    if shown == nil { await withCheckedContinuation { waiter = $0 } }
    guard let (line, at) = shown else { fail("ask:echo never showed how its Ask \(number) ended") }
    let took = at - tapped
    let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
    if line.contains("Answer \(number): ") {
      let pid = line.split(separator: " ").last.flatMap {
        pid_t($0.trimmingCharacters(in: CharacterSet(charactersIn: ") ")))
      }
      return ChaosCall(outcome: "answered", pid: pid, milliseconds: milliseconds)
    }
    let kind = line.split(separator: "(").dropFirst().first?.split(separator: ")").first.map(String.init) ?? "unknown"
    return ChaosCall(outcome: kind, pid: nil, milliseconds: milliseconds)
  }
}

/// How one call of the chaos ended: `answered` or the error's kind, the
/// process that answered, and how long it took in ms.
struct ChaosCall: Sendable {
  let outcome: String
  let pid: pid_t?
  let milliseconds: Double
}

/// One call of echo through `consumer`.
@MainActor
func chaosCall(_ consumer: ServiceHandle<FaultyService>, deadline: Double) async -> ChaosCall {
  let began = ContinuousClock.now
  var ended = "answered"
  var pid: pid_t?
  do {
    let answer = try await consumer.echo("ping", deadline: deadline)
    pid = answer.split(separator: " ").last.flatMap { pid_t($0.dropLast()) }
  } catch let error as ServiceCallError {
    ended = error.kind.rawValue
  } catch {
    ended = "\(error)"
  }
  let took = ContinuousClock.now - began
  let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
  return ChaosCall(outcome: ended, pid: pid, milliseconds: milliseconds)
}
