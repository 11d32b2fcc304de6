// The boundary between the host and a plugin process (issue 28): the floor
// of a round trip, a tap while another plugin is hung, and a tap's cost as
// the number of live modules in one plugin process grows.
import Foundation
import Glibc
import ViperKit
import VivariumRuntime
import VivariumSupport
import VivariumWire

/// Waits, without spinning, until a runtime's screen shows a text, and says
/// when it first did: the screen is looked at each time the runtime says it
/// may have changed, as the full-screen app redraws, and the time is taken
/// there. Waking the waiting task afterwards (a continuation, which the
/// runtime resumes through the global executor before the main actor) is
/// the benchmark's own cost, not the round trip's, and is not timed. One
/// watchdog, looking every 100 ms, ends a wait that has gone on for 10 s.
@MainActor
final class ScreenWaiter {
  private let runtime: HostRuntime
  private let renderer = TextRenderer(width: 80)
  private var waiter: CheckedContinuation<Void, Never>?
  /// The text waited for, and when the screen first showed it.
  private var wanted: (text: String, shownAt: UInt64?)?
  /// When the current wait fails, in ``nanoseconds()``.
  private var failsAt = UInt64.max
  private var watchdog: Task<Void, Never>?

  init(_ runtime: HostRuntime) {
    self.runtime = runtime
    runtime.onScreenChanged = { [weak self] in self?.screenChanged() }
    watchdog = Task { @MainActor [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(nanoseconds: 100_000_000)
        guard let self else { return }
        if nanoseconds() > self.failsAt { self.wake() }
      }
    }
  }

  isolated deinit { watchdog?.cancel() }

  private func lines() -> [String] { runtime.screen()?.lines(renderer) ?? [] }

  private func screenChanged() {
    guard let text = wanted?.text, wanted?.shownAt == nil, lines().contains(where: { $0.contains(text) }) else {
      return
    }
    wanted?.shownAt = nanoseconds()
    wake()
  }

  private func wake() {
    waiter?.resume()
    waiter = nil
  }

  /// Waits for the screen to show `text` when it next changes: called
  /// before the event is sent, so that a change made while it is handled
  /// is seen, and one that shows what was already shown counts.
  func expect(_ text: String) {
    wanted = (text, nil)
  }

  /// When (``nanoseconds()``) the screen showed the text ``expect(_:)``
  /// named: with `now`, at once if it shows it now (in one process the
  /// screen is drawn when the event returns, as the app redraws after a
  /// key); otherwise at the first change that showed it. Fails after 10 s.
  func shown(now: Bool) async -> UInt64 {
    guard let text = wanted?.text else { fail("nothing was expected") }
    defer { (failsAt, wanted) = (.max, nil) }
    if now, lines().contains(where: { $0.contains(text) }) { return nanoseconds() }
    failsAt = nanoseconds() + 10_000_000_000
    while true {
      if let shownAt = wanted?.shownAt { return shownAt }
      guard nanoseconds() < failsAt else {
        fail("the screen never showed '\(text)':\n\(lines().joined(separator: "\n"))")
      }
      await withCheckedContinuation { waiter = $0 }
    }
  }
}

/// Starts `argv` with one end of a new socket pair as its stdin and
/// stdout; returns its pid and the other end.
func spawnOverSocketPair(_ argv: [String]) -> (pid: pid_t, socket: Int32) {
  var pair: [Int32] = [0, 0]
  // Close-on-exec: a child started later must not hold this one's end open.
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
    fail("socketpair: \(String(cString: strerror(errno)))")
  }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
  posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
  posix_spawn_file_actions_addclose(&actions, pair[0])
  let arguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
  defer { arguments.forEach { free($0) } }
  var pid: pid_t = 0
  guard posix_spawn(&pid, argv[0], &actions, nil, arguments, environ) == 0 else { fail("cannot start \(argv[0])") }
  close(pair[1])
  return (pid, pair[0])
}

/// Reads exactly `count` bytes from `fd`; false at its end.
func readFully(_ fd: Int32, _ buffer: inout [UInt8], _ count: Int) -> Bool {
  var got = 0
  while got < count {
    let read = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, count - got) }
    guard read > 0 else { return false }
    got += read
  }
  return true
}

/// A child process that sends back each 16-byte frame over a socket pair
/// (`cat`, the socket its stdin and stdout): a round trip with both sides
/// blocked in `read` is the least a call into a plugin process can cost.
final class BlockingEcho {
  private let pid: pid_t
  private let socket: Int32
  private let frame = [UInt8](repeating: 7, count: 16)
  private var back = [UInt8](repeating: 0, count: 16)

  init() { (pid, socket) = spawnOverSocketPair(["/bin/cat"]) }

  /// Microseconds for one frame there and back.
  func trip() -> Double {
    let start = nanoseconds()
    guard frame.withUnsafeBytes({ write(socket, $0.baseAddress, 16) }) == 16 else { fail("write to cat failed") }
    guard readFully(socket, &back, 16) else { fail("cat closed the socket") }
    return Double(nanoseconds() - start) / 1000
  }

  func close() {
    Glibc.close(socket)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }
}

/// Microseconds per round trip of ``BlockingEcho``: `count` trips after 200 not counted.
func socketPairFloor(count: Int) -> [Double] {
  let echo = BlockingEcho()
  defer { echo.close() }
  return (0..<(count + 200)).map { _ in echo.trip() }.dropFirst(200).map { $0 }
}

/// The child of ``handoffFloor(benchmark:count:)``: a thread reads each
/// 16-byte frame from stdin and hands it to the main actor, which writes it
/// back, as a plugin process hands each message to its modules. Never returns.
func echoThroughTheMainActor() -> Never {
  let reader = Thread {
    var frame = [UInt8](repeating: 0, count: 16)
    while readFully(0, &frame, 16) {
      let copy = frame
      Task { @MainActor in _ = copy.withUnsafeBytes { write(1, $0.baseAddress, 16) } }
    }
    exit(0)
  }
  reader.start()
  dispatchMain()
}

/// Hands each frame read by a thread to the main actor, as the host's
/// reader hands a plugin's messages to it.
@MainActor
final class MainActorHandoff {
  private var waiter: CheckedContinuation<Void, Never>?
  private var arrived = 0
  /// When the last frame reached the main actor, in ``nanoseconds()``.
  private var arrivedAt: UInt64 = 0

  func deliver() {
    arrived += 1
    arrivedAt = nanoseconds()
    waiter?.resume()
    waiter = nil
  }

  /// When frame `count` (counting from 1) reached the main actor, once it
  /// has: as ``ScreenWaiter`` times a screen, waking the waiter is not timed.
  func wait(until count: Int) async -> UInt64 {
    while arrived < count { await withCheckedContinuation { waiter = $0 } }
    return arrivedAt
  }
}

/// The floor of a host that never blocks on a plugin: the round trip of
/// ``BlockingEcho``, with each side's main actor in the loop as in the host
/// and the plugin process: a thread reads the socket and hands each frame to
/// the main actor, which alone writes (the child is `benchmark
/// --echo-through-main`).
@MainActor
final class HandoffEcho {
  private let pid: pid_t
  private let socket: Int32
  private let handoff = MainActorHandoff()
  private var sent = 0
  private let frame = [UInt8](repeating: 7, count: 16)

  init(benchmark: String) {
    (pid, socket) = spawnOverSocketPair([benchmark, "--echo-through-main"])
    let (socket, handoff) = (socket, handoff)
    Thread {
      var frame = [UInt8](repeating: 0, count: 16)
      while readFully(socket, &frame, 16) { Task { @MainActor in handoff.deliver() } }
    }.start()
  }

  /// Microseconds for one frame there and back, to the main actor.
  func trip() async -> Double {
    sent += 1
    let start = nanoseconds()
    guard frame.withUnsafeBytes({ write(socket, $0.baseAddress, 16) }) == 16 else { fail("write to the echo failed") }
    return Double(await handoff.wait(until: sent) - start) / 1000
  }

  func close() {
    shutdown(socket, Int32(SHUT_RDWR))
    var status: Int32 = 0
    waitpid(pid, &status, 0)
  }
}

/// Microseconds per round trip of ``HandoffEcho``: `count` trips after 200 not counted.
@MainActor
func handoffFloor(benchmark: String, count: Int) async -> [Double] {
  let echo = HandoffEcho(benchmark: benchmark)
  defer { echo.close() }
  var times: [Double] = []
  for trip in 0..<(count + 200) {
    let time = await echo.trip()
    if trip >= 200 { times.append(time) }
  }
  return times
}

/// What frame:hang's child, in libFaulty.so, does while the pings are timed.
enum ChildState {
  /// Nothing.
  case idle
  /// It is busy with a tap it never finishes.
  case hung
  /// It is hung, and the host has 2 MB of its storage's changes to send
  /// it that its socket has no room for.
  case stoppedReading
}

/// Microseconds from each tap on `frame:hang`'s Ping (FaultyFrame's process)
/// to the screen showing its count, `count` taps, while its child in
/// libFaulty.so is as `child` says.
@MainActor
func pingTimes(vivarium: String, plugins: String, data: String, child: ChildState, count: Int) async -> [Double] {
  let runtime = await makeRuntime(.outOfProcess, vivarium: vivarium, plugins: plugins, data: data, responseLimit: 3600)
  defer { runtime.shutdown() }
  let screen = ScreenWaiter(runtime)
  do {
    try await runtime.open("frame:hang")
    if child != .idle { try runtime.send(.tap(button: "inner/go")) }
  } catch {
    fail("frame:hang: \(error)")
  }
  if child == .stoppedReading {
    // The child's process holds a copy of its storage: each change is sent to it.
    guard let route = runtime.catalog.routes.first(where: { $0.pluginPath.hasSuffix("/libFaulty.so") }) else {
      fail("no libFaulty.so in \(plugins)")
    }
    let contract = Contract(urn: "bench:flood", summary: "Fills the child's socket.", services: [.storage])
    let storage = runtime.services.services(for: contract, plugin: route.identity, urn: contract.urn).storage
    for index in 0..<20 {
      do {
        try storage?.set(String(repeating: "x", count: 100_000), forKey: "flood.\(index)")
      } catch {
        fail("the flood: \(error)")
      }
    }
  }
  var times: [Double] = []
  for ping in 1...(count + 100) {
    screen.expect("(pings: \(ping))")
    let start = nanoseconds()
    do {
      try runtime.send(.tap(button: "ping"))
    } catch {
      fail("frame:hang: ping: \(error)")
    }
    let shown = await screen.shown(now: false)
    if ping > 100 { times.append(Double(shown - start) / 1000) }
  }
  if child != .idle, !runtime.work.inFlight.contains(where: { $0.contains("a tap on 'go'") }) {
    fail("the child was not busy with its tap while the pings were timed: \(runtime.work.inFlight)")
  }
  return times
}

/// Microseconds per Next or Previous on products:search with `live` of them
/// open, one pushed on another, all in the one ProductSearch process.
@MainActor
func tapTimes(vivarium: String, plugins: String, data: String, live: Int, count: Int, confined: Bool = true) async
  -> [Double]
{
  let runtime = await makeRuntime(.outOfProcess, vivarium: vivarium, plugins: plugins, data: data, confined: confined)
  defer { runtime.shutdown() }
  let screen = ScreenWaiter(runtime)
  do {
    for _ in 0..<live { try await runtime.open("products:search") }
  } catch {
    fail("products:search: \(error)")
  }
  guard runtime.nodes.count == live else { fail("\(runtime.nodes.count) modules live, not \(live)") }
  var times: [Double] = []
  for tap in 0..<(count + 100) {
    let (button, shows) = tap % 2 == 0 ? ("next", "page 2 of 3") : ("previous", "page 1 of 3")
    screen.expect(shows)
    let start = nanoseconds()
    do {
      try runtime.send(.tap(button: button))
    } catch {
      fail("products:search: \(error)")
    }
    let shown = await screen.shown(now: false)
    if tap >= 100 { times.append(Double(shown - start) / 1000) }
  }
  return times
}

/// `median  p99  max  (min)` of microsecond `times`.
func tail(_ times: [Double]) -> String {
  let sorted = times.sorted()
  return String(
    format: "median %7.1f  p99 %7.1f  max %8.1f  (min %.1f)", sorted[sorted.count / 2],
    sorted[sorted.count * 99 / 100], sorted[sorted.count - 1], sorted[0])
}

/// The two floors of a round trip into another process, in µs.
struct Floors {
  /// Both sides blocked in `read` (``socketPairFloor(count:)``).
  let blocking: [Double]
  /// Each side's main actor in the loop (``handoffFloor(benchmark:count:)``).
  let handoff: [Double]
  /// The same, carrying the very messages of the call, coded (``CodedEcho``); empty where not measured.
  var coded: [Double] = []

  /// A round trip's median against the floors' medians, with the target:
  /// at most 2× the floor that carries the call's own messages, coded,
  /// where it was measured (what the host and the plugin do besides moving
  /// and coding them costs no more than that), else 2× the floor with the
  /// main actors in the loop. Beside it, what the coded floor is to the
  /// main actors' floor: the part of an event that moving its messages
  /// through the codec takes, before the host or the plugin does anything.
  func ratios(of roundTrip: Double) -> String {
    let (toBlocking, toHandoff) = (roundTrip / median(blocking), roundTrip / median(handoff))
    guard !coded.isEmpty else {
      return String(
        format: "    out of process / floor %.1f×; / floor with the main actors in the loop %.1f× (target ≤ 2×: %@)",
        toBlocking, toHandoff, toHandoff <= 2 ? "met" : "MISSED")
    }
    let toCoded = roundTrip / median(coded)
    return String(
      format:
        "    out of process / floor %.1f×; / floor with the main actors in the loop %.1f×; / floor carrying its messages, coded %.1f× (target ≤ 2×: %@); the coded floor alone is %.1f× the main actors' floor",
      toBlocking, toHandoff, toCoded, toCoded <= 2 ? "met" : "MISSED", median(coded) / median(handoff))
  }
}

/// Prints the boundary's figures; `faulty` is a plugin directory that also
/// holds Faulty and FaultyFrame.
@MainActor
func boundaryFigures(
  vivarium: String, floors: Floors, plugins: String, faulty: String, data: (String) -> String
) async {
  print("The boundary (issue 28), out of process; µs")
  print("  floor: a 16-byte frame to a child process and back over a socket pair  \(tail(floors.blocking))")
  print("  the same with each side's main actor in the loop (a thread reads, hands over)  \(tail(floors.handoff))")
  for rows in [1, 10, 100] { codecFigures(rows: rows, changes: rows > 1) }
  let floorMedian = median(floors.blocking)
  let idle = await pingTimes(vivarium: vivarium, plugins: faulty, data: data("ping-idle"), child: .idle, count: 1_000)
  let hung = await pingTimes(vivarium: vivarium, plugins: faulty, data: data("ping-hung"), child: .hung, count: 1_000)
  let full = await pingTimes(
    vivarium: vivarium, plugins: faulty, data: data("ping-full"), child: .stoppedReading, count: 1_000)
  print("  a tap on frame:hang's Ping to its screen, its child idle             \(tail(idle))")
  print("  the same while its child (another plugin process) is hung in a tap  \(tail(hung))")
  print("  the same while its child is hung and has stopped reading its socket  \(tail(full))")
  print(
    String(
      format: "    hung / idle %.2f×, stopped reading / idle %.2f× (medians); target: the same (≤ 1.2×): %@",
      median(hung) / median(idle), median(full) / median(idle),
      max(median(hung), median(full)) <= 1.2 * median(idle) ? "met" : "MISSED"))
  var perLive: [(Int, Double)] = []
  for live in [1, 100, 1_000] {
    let times = await tapTimes(vivarium: vivarium, plugins: plugins, data: data("live-\(live)"), live: live, count: 600)
    perLive.append((live, median(times)))
    print("  products:search Next/Previous with \(pad(String(live), 5)) live modules in its process  \(tail(times))")
  }
  print(
    String(format: "    1,000 live / 1 live (medians) %.2f×; target flat", perLive[2].1 / perLive[0].1)
      + String(format: "; 1 live / floor %.1f×", perLive[0].1 / floorMedian))
}

/// A page like products:search's (a heading, a field, a list of `rows`
/// rows, two buttons, a line), its row `changed` (if any) on sale.
func productsPage(rows: Int, changed: Int? = nil) -> ViewNode {
  ViewNode.stack(
    .vertical,
    [
      .heading("Products"), .field(id: "query", label: "Search", value: "lamp", placeholder: "Name"),
      .list(
        id: "results",
        rows: (0..<rows).map {
          ListRow(
            id: "\($0)", title: $0 == changed ? "Product \($0), on sale" : "Product \($0)", detail: "€ \($0).99",
            marker: Marker(.positive, "in stock"))
        }),
      .stack(.horizontal, [.button(id: "previous", title: "Previous"), .button(id: "next", title: "Next")]),
      .text("page 1 of 3", tone: .muted),
    ])
}

/// Microseconds to encode and to decode `message` with the wire's one
/// codec, 2,000 times after 200 not counted, and its size in bytes.
func codecTimes(_ message: PluginMessage) -> (encode: [Double], decode: [Double], size: Int) {
  var encode: [Double] = []
  var decode: [Double] = []
  var size = 0
  for round in 0..<2_200 {
    let start = nanoseconds()
    guard let bytes = try? message.encoded() else { fail("the draw did not encode") }
    let encoded = nanoseconds()
    guard (try? PluginMessage.decode(bytes)) == message else { fail("the draw did not come back") }
    let decoded = nanoseconds()
    size = bytes.count
    if round >= 200 {
      encode.append(Double(encoded - start) / 1000)
      decode.append(Double(decoded - encoded) / 1000)
    }
  }
  return (encode, decode, size)
}

/// Microseconds for `body`, 2,000 times after 200 not counted.
func times(_ body: () throws -> Void) rethrows -> [Double] {
  var times: [Double] = []
  for round in 0..<2_200 {
    let start = nanoseconds()
    try body()
    if round >= 200 { times.append(Double(nanoseconds() - start) / 1000) }
  }
  return times
}

/// Microseconds to encode and to decode, with the wire's one codec, a draw
/// of ``productsPage(rows:changed:)``, and its size in bytes; with `changes`,
/// beside it the same page with one row changed sent as what changed
/// (``PluginMessage/drawChanges(module:_:)``): its size, encoding and
/// decoding, and the time to make it (in the plugin process: the diff of
/// the last tree and the new one) and to apply it (in the host).
func codecFigures(rows: Int, changes: Bool = false) {
  let page = productsPage(rows: rows)
  let whole = codecTimes(.draw(module: 1, page))
  print(
    "  a draw of \(pad(String(rows), 3)) rows (\(whole.size) bytes) through the codec: encoded \(summary(whole.encode)), decoded \(summary(whole.decode)) µs (median (min–max))"
  )
  guard changes else { return }
  let changed = productsPage(rows: rows, changed: rows / 2)
  let diff = ViewTreeDiff.diff(from: page, to: changed)
  guard diff.wholeTree == nil, (try? ViewTreeDiff.apply(diff, to: page)) == changed else {
    fail("one changed row of \(rows) did not make changes that apply")
  }
  let coded = codecTimes(.drawChanges(module: 1, diff))
  let made = times { _ = ViewTreeDiff.diff(from: page, to: changed) }
  let applied = times { _ = try? ViewTreeDiff.apply(diff, to: page) }
  print(
    "    the same, one row changed, as changes (\(coded.size) bytes, \(String(format: "%.1f", Double(coded.size) / Double(whole.size) * 100))% of whole): encoded \(summary(coded.encode)), decoded \(summary(coded.decode)) µs; made from the last tree \(summary(made)), applied to it \(summary(applied)) µs"
  )
}
