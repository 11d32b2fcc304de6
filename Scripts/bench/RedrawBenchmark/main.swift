// Prints the time from a finished `await` in a module's work to the screen
// redrawn, in a release build: a reply arrives on another thread (as a
// network reply would), the work resumes on the main actor and draws, the
// host carries the draw out and says the screen changed, and an event loop
// like `vivarium run`'s composes the frame as text. Built and run by
// Scripts/benchmark.
import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumRuntime
import VivariumSupport

/// Replies handed from a background thread to the module's work.
let (replies, replyInbox) = AsyncStream<Int>.makeStream()

/// `bench:live`: on attach, starts work that waits for each reply and draws it.
struct LiveFactory: ModuleFactory {
  static var contract: Contract { Contract(urn: "bench:live", summary: "Draws each reply it awaits.") }

  func build(_ context: ModuleContext) throws -> Module {
    Module(view: LiveView(context: context), presenter: LivePresenter())
  }
}

final class LivePresenter: ViperPresenter {}

final class LiveView: ViperView {
  let context: ModuleContext
  init(context: ModuleContext) { self.context = context }

  func lifecycle(_ event: LifecycleEvent) {
    guard event == .attach else { return }
    draw("waiting")
    context.work.start("replies") { [weak self] in
      for await reply in replies { self?.draw("reply \(reply)") }
    }
  }

  func draw(_ status: String) {
    context.canvas.draw(.stack(.vertical, [.heading("Live"), .text(status), .button(id: "refresh", title: "Refresh")]))
  }

  func handle(_ event: ViewEvent) {}
}

/// `median (min–max)` of `values`, in microseconds.
func summary(_ values: [Double]) -> String {
  let sorted = values.sorted()
  return String(format: "%8.1f µs (%.1f–%.1f)", sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1])
}

func microseconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 }

let trials = 1_001
let data = FileManager.default.temporaryDirectory.appendingPathComponent("vivarium-redraw-\(getpid())").path
defer { try? FileManager.default.removeItem(atPath: data) }
let catalog = PluginCatalog(
  outcomes: [.loaded(LoadedPlugin(path: "bench.so", name: "Bench", factories: [LiveFactory()]))])
let runtime = HostRuntime(catalog: catalog, services: HostServices(dataDirectory: data, now: nil))
// As in `vivarium run`: a change asks for one redraw, which the loop draws.
let (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
runtime.onScreenChanged = { changed.yield() }
do {
  try await runtime.open("bench:live")
} catch {
  print("error:", error)
  exit(1)
}
/// Sends `trials` replies, each once the previous one is on screen; returns
/// the microseconds from each reply to its frame, and of composing it.
@MainActor
func measure(_ trials: Int, changes: AsyncStream<Void>) async -> (latencies: [Double], composing: [Double]) {
  let renderer = TextRenderer(width: 80)
  var redraws = changes.makeAsyncIterator()
  var latencies: [Double] = []
  var composing: [Double] = []
  for reply in 0..<trials {
    // The reply arrives on another thread; the time is taken just before.
    let sent = await withCheckedContinuation { (done: CheckedContinuation<UInt64, Never>) in
      DispatchQueue.global().async {
        let now = DispatchTime.now().uptimeNanoseconds
        replyInbox.yield(reply)
        done.resume(returning: now)
      }
    }
    var shown = false
    while !shown, await redraws.next() != nil {
      let start = DispatchTime.now().uptimeNanoseconds
      shown = (runtime.screen()?.lines(renderer) ?? []).contains { $0.contains("reply \(reply)") }
      if shown { composing.append(microseconds(since: start)) }
    }
    guard shown else {
      print("error: reply \(reply) never reached the screen")
      exit(1)
    }
    latencies.append(microseconds(since: sent))
  }
  return (latencies, composing)
}

let (latencies, composing) = await measure(trials, changes: changes)
print("median (min–max) of \(trials) replies")
print("finished await → screen redrawn (frame composed)", summary(latencies))
print("  of which composing the frame as text          ", summary(composing))
