// Business service calls (issue 29): FaultyFrame's ask:echo calls the
// faulty service that the Faulty plugin provides, out of process (each
// plugin in a process of its own, the call through the host) and in one.
import FaultyInterface
import Foundation
import ViperKit
import VivariumRuntime
import VivariumSupport
import VivariumWire

/// When the runtime's screen changed, in ``nanoseconds()``: recorded
/// without drawing anything, so that measuring the host adds no work to
/// its main actor while a call crosses it (drawing the screen at each
/// change, as an earlier version of this benchmark did, put a whole
/// render on the call's way through the host).
@MainActor
final class ScreenTimes {
  private(set) var changes: [UInt64] = []

  init(_ runtime: HostRuntime) {
    runtime.onScreenChanged = { [weak self] in self?.changes.append(nanoseconds()) }
  }

  /// Forgets the changes so far.
  func reset() { changes.removeAll(keepingCapacity: true) }
}

/// Microseconds per call from ask:echo to the faulty service, `count`
/// calls after 100 not counted: as the consumer times it (`Call N took X
/// µs`: the consumer's process to the host, the host to the provider's
/// process and back), and as the host's screen shows it (from the tap's
/// own draw, "Asked: N", sent before the work that calls starts, to the
/// answer drawn: one more leg, the answer's draw back to the host).
@MainActor
func serviceCallTimes(_ mode: Mode, vivarium: String, plugins: String, data: String, count: Int) async -> (
  timedByConsumer: [Double], onScreen: [Double]
) {
  let runtime = await makeRuntime(mode, vivarium: vivarium, plugins: plugins, data: data)
  defer { runtime.shutdown() }
  let screen = ScreenTimes(runtime)
  do {
    try await runtime.open("ask:echo")
  } catch {
    fail("ask:echo: \(error)")
  }
  var (timed, onScreen): ([Double], [Double]) = ([], [])
  for call in 1...(count + 100) {
    screen.reset()
    do {
      try runtime.send(.tap(button: "ask"))
    } catch {
      fail("ask:echo: \(error)")
    }
    // As a script line does: until the tap and the work it started have ended.
    let stuck = await runtime.settleWork(limit: 60)
    let lines = runtime.screen()?.lines(TextRenderer(width: 80)) ?? []
    guard stuck.isEmpty, lines.contains(where: { $0.contains("Answer \(call): echo: ping") }),
      let took = lines.first(where: { $0.contains("Call \(call) took ") }),
      let micros = took.split(separator: " ").dropLast().last.flatMap({ Double($0) }),
      let first = screen.changes.first, let last = screen.changes.last
    else { fail("ask:echo did not answer call \(call): \(lines)") }
    if call > 100 {
      timed.append(micros)
      // From the tap's own draw ("Asked: N") to the answer's.
      onScreen.append(Double(last - first) / 1000)
    }
  }
  return (timed, onScreen)
}

/// Microseconds per call of the faulty service's echo in one process,
/// `count` calls one after another after 100 not counted, through the
/// host's router (checked, timed, logged) to the provider and back, each
/// value encoded and decoded on the way, as a module's call is; and, one
/// between each two calls, the floor of any call that suspends: a
/// main-actor task suspended and resumed by another. Swift resumes a
/// continuation through its global executor, then back to the main actor,
/// and whether those threads were parked moves both figures together.
@MainActor
func directCallTimes(vivarium: String, plugins: String, data: String, count: Int) async -> (
  calls: [Double], floor: [Double]
) {
  let runtime = await makeRuntime(.inProcess, vivarium: vivarium, plugins: plugins, data: data)
  defer { runtime.shutdown() }
  guard
    let calls = runtime.host.serviceCalls(
      as: "benchmark:caller", in: "Benchmark", requiring: [.required(FaultyService.self, "1.0"..<"2")])
  else { fail("no calls for a consumer of the faulty service") }
  let faulty = ServiceHandle<FaultyService>(calls: calls)
  var times: [Double] = []
  var floor: [Double] = []
  for call in 0..<(count + 100) {
    let start = nanoseconds()
    do {
      guard try await faulty.echo("ping").hasPrefix("echo: ping") else { fail("echo answered something else") }
    } catch {
      fail("echo: \(error)")
    }
    let suspended = nanoseconds()
    await withCheckedContinuation { continuation in Task { @MainActor in continuation.resume() } }
    if call >= 100 {
      times.append(Double(suspended - start) / 1000)
      floor.append(Double(nanoseconds() - suspended) / 1000)
    }
  }
  return (times, floor)
}

/// Microseconds per call of ``CodedEcho`` carrying a call's four messages
/// (the consumer's call, the host's to the provider, the provider's
/// answer, the host's answer to the consumer), each coded as the call's
/// are: two round trips, `count` after 100 not counted.
@MainActor
func codedServiceFloor(benchmark: String, count: Int) async -> [Double] {
  let request = ServiceRequest(service: "faulty", operation: "echo", payload: .string("ping"), deadline: 1)
  let response = ServiceOutcome.response(.string("echo: ping (from process 12345)"))
  let echo = CodedEcho<PluginMessage, HostMessage>(
    benchmark: benchmark,
    replies: [[.callProvider(call: 1, request)], [.answer(call: 1, .outcome(response))]])
  defer { echo.close() }
  var trips: [Double] = []
  for call in 0..<(count + 100) {
    let there = await echo.trip(.callBusinessService(call: UInt32(call), module: 1, request))
    let back = await echo.trip(.providerAnswered(call: UInt32(call), response))
    if call >= 100 { trips.append(there + back) }
  }
  return trips
}

/// Prints the figures of a call between plugins: out of process beside the
/// floor of its two hops (two empty round trips with the main actors in
/// the loop, measured between its calls), and in one process.
@MainActor
func serviceCallFigures(vivarium: String, benchmark: String, plugins: String, data: (String) -> String) async {
  let calls = 2_000
  print("A business service call: ask:echo (FaultyFrame) calls the faulty service's echo (Faulty); \(calls) calls; µs")
  var outOfProcess: [Double] = []
  var onScreen: [Double] = []
  var floor: [Double] = []
  var codedFloor: [Double] = []
  for round in 0..<10 {
    let times = await serviceCallTimes(
      .outOfProcess, vivarium: vivarium, plugins: plugins, data: data("calls-out-\(round)"), count: calls / 10)
    outOfProcess += times.timedByConsumer
    onScreen += times.onScreen
    let trips = await handoffFloor(benchmark: benchmark, count: calls / 5)
    // Two hops: consumer to host to provider, and back.
    floor += stride(from: 0, to: trips.count - 1, by: 2).map { trips[$0] + trips[$0 + 1] }
    codedFloor += await codedServiceFloor(benchmark: benchmark, count: calls / 10)
  }
  let (inProcess, suspended) = await directCallTimes(
    vivarium: vivarium, plugins: plugins, data: data("calls-in"), count: calls)
  print("    out of process   \(tail(outOfProcess))  (timed by the consumer: to the host, the provider and back)")
  print("    its floor        \(tail(floor))  (two empty round trips to a process's main actor and back)")
  print(
    "    its coded floor  \(tail(codedFloor))  (the same, carrying the call's four messages, each encoded and decoded)")
  print("    on the screen    \(tail(onScreen))  (from the tap's draw to the answer's, as the host sees them)")
  let ratio = median(outOfProcess) / median(floor)
  let codedRatio = median(outOfProcess) / median(codedFloor)
  print(
    String(
      format: "    out of process / coded floor %.1f× (proposed target ≤ 2×: %@)", codedRatio,
      codedRatio <= 2 ? "met" : "MISSED"))
  let p99 = outOfProcess.sorted()[outOfProcess.count * 99 / 100]
  print(
    String(
      format: "    out of process / floor %.1f× (target ≤ 2×: %@); p99 %.0f µs (target ≤ 1000: %@)", ratio,
      ratio <= 2 ? "met" : "MISSED", p99, p99 <= 1000 ? "met" : "MISSED"))
  print("    in one process   \(tail(inProcess))  (the call alone, one after another)")
  print(
    "    its floor        \(tail(suspended))  (a main-actor task suspended and resumed by another, between the calls)")
  let inRatio = median(inProcess) / median(suspended)
  print(
    String(
      format: "    in one process / floor %.1f× (proposed target ≤ 2×: %@)", inRatio, inRatio <= 2 ? "met" : "MISSED"))
  print(
    String(
      format: "    in one process median %.1f µs (target ≤ 5: %@)", median(inProcess),
      median(inProcess) <= 5 ? "met" : "MISSED"))
}
