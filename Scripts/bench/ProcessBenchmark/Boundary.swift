// The boundary between the host and a plugin process (issue 28): the floor
// of a round trip, a tap while another plugin is hung, and a tap's cost as
// the number of live modules in one plugin process grows.
import Foundation
import Glibc
import ViperKit
import VivariumHost

/// Waits, without spinning, until a runtime's screen shows a text: resumed
/// each time the runtime says its screen may have changed.
@MainActor
final class ScreenWaiter {
  private let runtime: HostRuntime
  private let renderer = TextRenderer(width: 80)
  private var waiter: CheckedContinuation<Void, Never>?

  init(_ runtime: HostRuntime) {
    self.runtime = runtime
    runtime.onScreenChanged = { [weak self] in
      self?.waiter?.resume()
      self?.waiter = nil
    }
  }

  /// The screen's lines once they contain `shows`; fails after 10 s.
  func until(_ shows: String) async -> [String] {
    let deadline = nanoseconds() + 10_000_000_000
    while true {
      let lines = runtime.screen()?.lines(renderer) ?? []
      if lines.contains(where: { $0.contains(shows) }) { return lines }
      guard nanoseconds() < deadline else {
        fail("the screen never showed '\(shows)':\n\(lines.joined(separator: "\n"))")
      }
      let timer = Task { @MainActor [weak self] in
        try? await Task.sleep(nanoseconds: 10_000_000)
        self?.waiter?.resume()
        self?.waiter = nil
      }
      await withCheckedContinuation { waiter = $0 }
      timer.cancel()
    }
  }
}

/// Microseconds per round trip of a 16-byte frame over a socket pair to a
/// child process that sends it back (`cat`, the socket its stdin and
/// stdout): the least a call into a plugin process can cost. `count` trips
/// after 200 not counted.
func socketPairFloor(count: Int) -> [Double] {
  var pair: [Int32] = [0, 0]
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else {
    fail("socketpair: \(String(cString: strerror(errno)))")
  }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
  posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
  posix_spawn_file_actions_addclose(&actions, pair[0])
  let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/cat"), nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  guard posix_spawn(&pid, "/bin/cat", &actions, nil, argv, environ) == 0 else { fail("cannot start /bin/cat") }
  close(pair[1])
  let frame = [UInt8](repeating: 7, count: 16)
  var back = [UInt8](repeating: 0, count: 16)
  var times: [Double] = []
  for trip in 0..<(count + 200) {
    let start = nanoseconds()
    guard frame.withUnsafeBytes({ write(pair[0], $0.baseAddress, 16) }) == 16 else { fail("write to cat failed") }
    var got = 0
    while got < 16 {
      let read = back.withUnsafeMutableBytes { Glibc.read(pair[0], $0.baseAddress! + got, 16 - got) }
      guard read > 0 else { fail("cat closed the socket") }
      got += read
    }
    if trip >= 200 { times.append(Double(nanoseconds() - start) / 1000) }
  }
  close(pair[0])
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return times
}

/// Microseconds from each tap on `frame:hang`'s Ping (FaultyFrame's process)
/// to the screen showing its count, `count` taps, while its child in
/// libFaulty.so is idle or, with `hung`, busy with a tap it never finishes.
@MainActor
func pingTimes(vivarium: String, plugins: String, data: String, hung: Bool, count: Int) async -> [Double] {
  let runtime = makeRuntime(.outOfProcess, vivarium: vivarium, plugins: plugins, data: data, responseLimit: 3600)
  defer { runtime.shutdown() }
  let screen = ScreenWaiter(runtime)
  do {
    try runtime.open("frame:hang")
    if hung { try runtime.send(.tap(button: "inner/go")) }
  } catch {
    fail("frame:hang: \(error)")
  }
  var times: [Double] = []
  for ping in 1...(count + 100) {
    let start = nanoseconds()
    do {
      try runtime.send(.tap(button: "ping"))
    } catch {
      fail("frame:hang: ping: \(error)")
    }
    _ = await screen.until("(pings: \(ping))")
    if ping > 100 { times.append(Double(nanoseconds() - start) / 1000) }
  }
  if hung, !runtime.work.inFlight.contains(where: { $0.contains("a tap on 'go'") }) {
    fail("the child was not busy with its tap while the pings were timed: \(runtime.work.inFlight)")
  }
  return times
}

/// Microseconds per Next or Previous on products:search with `live` of them
/// open, one pushed on another, all in the one ProductSearch process.
@MainActor
func tapTimes(vivarium: String, plugins: String, data: String, live: Int, count: Int) async -> [Double] {
  let runtime = makeRuntime(.outOfProcess, vivarium: vivarium, plugins: plugins, data: data)
  defer { runtime.shutdown() }
  let screen = ScreenWaiter(runtime)
  do {
    for _ in 0..<live { try runtime.open("products:search") }
  } catch {
    fail("products:search: \(error)")
  }
  guard runtime.nodes.count == live else { fail("\(runtime.nodes.count) modules live, not \(live)") }
  var times: [Double] = []
  for tap in 0..<(count + 100) {
    let (button, shows) = tap % 2 == 0 ? ("next", "page 2 of 3") : ("previous", "page 1 of 3")
    let start = nanoseconds()
    do {
      try runtime.send(.tap(button: button))
    } catch {
      fail("products:search: \(error)")
    }
    _ = await screen.until(shows)
    if tap >= 100 { times.append(Double(nanoseconds() - start) / 1000) }
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

/// Prints the boundary's figures; `faulty` is a plugin directory that also
/// holds Faulty and FaultyFrame.
@MainActor
func boundaryFigures(vivarium: String, plugins: String, faulty: String, data: (String) -> String) async {
  print("The boundary (issue 28), out of process; µs")
  let floor = socketPairFloor(count: 5_000)
  let floorMedian = median(floor)
  print("  floor: a 16-byte frame to a child process and back over a socket pair  \(tail(floor))")
  let idle = await pingTimes(vivarium: vivarium, plugins: faulty, data: data("ping-idle"), hung: false, count: 1_000)
  let hung = await pingTimes(vivarium: vivarium, plugins: faulty, data: data("ping-hung"), hung: true, count: 1_000)
  print("  a tap on frame:hang's Ping to its screen, its child idle             \(tail(idle))")
  print("  the same while its child (another plugin process) is hung in a tap  \(tail(hung))")
  print(
    String(
      format: "    hung / idle (medians) %.2f×; target: the same, ≤ 2 ms: %@", median(hung) / median(idle),
      median(hung) <= 2_000 ? "met" : "MISSED"))
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
