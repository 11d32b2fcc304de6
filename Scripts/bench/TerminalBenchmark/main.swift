// Prints, for the full-screen app on the demo dashboard (100×30, release
// build): the bytes of a full repaint; and for a key press (Tab, moving the
// focus from one button to the next), the bytes written and the time from
// the key to the frame's bytes (handling the key, laying the screen out,
// and the difference from the frame before). Built and run by Scripts/benchmark.
import Foundation
import VivariumApp
import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTerminal

/// `median (min–max)` of `values`.
func summary(_ values: [Double], _ unit: String, _ format: String = "%.1f") -> String {
  let sorted = values.sorted()
  return String(
    format: "\(format) \(unit) (\(format)–\(format))", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

@MainActor
func run() async throws {
  let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
  let catalog = PluginCatalog(
    outcomes: PluginDiscovery(commandLine: [], environment: [:], executable: executable).load(with: PluginLoader()))
  let data = FileManager.default.temporaryDirectory.appendingPathComponent("vivarium-terminal-\(getpid())").path
  defer { try? FileManager.default.removeItem(atPath: data) }
  let runtime = HostRuntime(catalog: catalog, services: HostServices(dataDirectory: data, now: 1_795_262_400))
  let session = Session(
    runtime: runtime, renderer: TextRenderer(width: 100), plugins: "", routes: "", scheme: nil, settles: false)
  _ = await session.execute("open login:form")
  let app = TerminalApp(session: session, name: "Vivarium demo", width: 100, height: 30) { 0 }
  // Signed in with keys, as a person does; the clock is virtual.
  _ = app.frame()
  for key: KeyEvent in Array("ada").map(KeyEvent.character) + [.tab] + Array("lovelace").map(KeyEvent.character) + [
    .enter, .enter,
  ] {
    _ = await app.handle(key)
  }
  await runtime.letTimePass(2, settleLimit: 60)
  guard runtime.top?.urn == "dashboard:home?user=ada" else {
    print("error: the demo did not sign in; is the release build's plugin directory complete?")
    exit(1)
  }
  let writer = FrameWriter(colour: true)
  var previous = app.frame()
  let full = writer.frame(from: nil, to: previous).count
  // What a redraw writing every cell costs: the difference from a grid
  // where every cell differs.
  var everywhere = Grid(width: 100, height: 30)
  for row in 0..<30 { everywhere.put(String(repeating: "x", count: 100), x: 0, y: row) }
  let everyCell = writer.frame(from: everywhere, to: previous).count
  if CommandLine.arguments.contains("--show") {
    _ = await app.handle(.tab)
    print(String(decoding: writer.frame(from: previous, to: app.frame()), as: UTF8.self).debugDescription)
  }
  var times: [Double] = []
  var bytes: [Double] = []
  for trial in 0..<2_001 {
    let start = DispatchTime.now().uptimeNanoseconds
    _ = await app.handle(trial % 2 == 0 ? .tab : .backTab)
    let frame = app.frame()
    let written = writer.frame(from: previous, to: frame)
    let end = DispatchTime.now().uptimeNanoseconds
    previous = frame
    times.append(Double(end - start) / 1000)
    bytes.append(Double(written.count))
  }
  runtime.shutdown()
  let median = bytes.sorted()[bytes.count / 2]
  print("full repaint of the dashboard (100×30), every cell    \(everyCell) bytes")
  print("full repaint after a clear (blank cells skipped)     \(full) bytes")
  print("Tab: bytes written                                   \(summary(bytes, "bytes", "%.0f"))")
  print(
    "Tab: share of a full repaint (every cell / after a clear)  \(String(format: "%.1f%% / %.1f%%", 100 * median / Double(everyCell), 100 * median / Double(full)))"
  )
  print("Tab: key to frame bytes (2,001 presses)              \(summary(times, "µs"))")
  input()
}

/// Reading input of growing size and of each shape that once stalled the
/// app (random bytes, escape sequences that never end, a paste without
/// its markers), as the app reads it: in pieces of 4 KiB. Each time is the
/// median of 5, with ns per byte beside it: the same at every size when
/// the reading is linear.
func input() {
  var generator = SystemRandomNumberGenerator()
  let shapes: [(String, (Int) -> [UInt8])] = [
    ("random bytes", { size in (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) } }),
    (
      "ESC [ with no end",
      { size in Array(repeating: Array("\u{1B}[1;2;3;4;5;6;7;8".utf8), count: size / 18).flatMap { $0 } }
    ),
    ("a paste without its markers", { size in (0..<size).map { UInt8(ascii: $0 % 64 == 63 ? "\n" : "a") } }),
  ]
  for (name, make) in shapes {
    for size in [100_000, 1_000_000, 10_000_000] {
      let bytes = make(size)
      var times: [Double] = []
      var events = 0
      for _ in 0..<5 {
        var parser = KeyParser()
        events = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var offset = 0
        while offset < bytes.count {
          events += parser.feed(bytes[offset..<min(offset + 4096, bytes.count)]).count
          offset += 4096
        }
        events += parser.flush().count
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
      }
      let perByte = times.sorted()[2] * 1e6 / Double(bytes.count)
      let label = "input: \(name), \(bytes.count / 1000) KB"
      print(
        "\(label.padding(toLength: 52, withPad: " ", startingAt: 0))\(summary(times, "ms", "%.2f")), "
          + String(format: "%.1f ns per byte, %d events", perByte, events))
    }
  }
}

try await run()
