import Foundation
import Testing
import ViperKit

@testable import VivariumLoading
@testable import VivariumRuntime
@testable import VivariumWire

/// A module in a plugin process draws its first tree whole and then what
/// changed since: the host's screen is the same as with the module in the
/// host's own process, step after step; changes that do not apply stop
/// the plugin, and the host goes on.
@Suite("Draws as changes")
@MainActor
struct DrawChangesTests {
  /// products:search paged, searched, its favourites changed and filtered,
  /// out of process and in one side by side.
  @Test func aModuleInAPluginProcessRedrawsThroughItsChanges() async throws {
    let remote = try await PluginReloadTests.Bench(outOfProcess: true)
    let local = try await PluginReloadTests.Bench(outOfProcess: false)
    for bench in [remote, local] { try await bench.runtime.open("products:search") }
    let module = try #require(remote.runtime.top?.remote)
    #expect(module.changesDrawn == 0, "the first draw is whole")
    #expect(remote.runtime.screen()?.tree == local.runtime.screen()?.tree)
    let steps: [ViewEvent] = [
      .tap(button: "next"), .tap(button: "next"), .tap(button: "previous"), .select(list: "results", row: "6"),
      .select(list: "results", row: "8"), .tap(button: "favourites"), .select(list: "results", row: "6"),
      .tap(button: "favourites"), .type(field: "query", text: "e"), .tap(button: "search"), .tap(button: "next"),
      .tap(button: "previous"),
    ]
    var screens: Set<String> = []
    for step in steps {
      for bench in [remote, local] { try await bench.runtime.actUntilIdle(step) }
      #expect(remote.runtime.screen()?.tree == local.runtime.screen()?.tree, "after \(step)")
      #expect(remote.text == local.text, "after \(step)")
      screens.insert(remote.text)
    }
    #expect(screens.count >= 6, "the steps changed the screen: \(screens.count) screens")
    #expect(module.changesDrawn >= steps.count - 2, "\(module.changesDrawn) of \(steps.count) draws as changes")
    #expect(remote.runtime.takeProblems().isEmpty)
  }

  /// Changes made from another tree, or out of the range of the one the
  /// host has, stop the plugin's process saying so; its module shows it,
  /// and once restarted draws whole, then changes again.
  @Test(arguments: [false, true])
  func changesThatDoNotApplyStopThePlugin(rightBase: Bool) async throws {
    let bench = try await PluginReloadTests.Bench(outOfProcess: true)
    try await bench.runtime.open("products:search")
    try await bench.runtime.act(.tap(button: "next"))
    let module = try #require(bench.runtime.top?.remote)
    let drawn = try #require(module.drawn)
    // The right base, out of range; or the base of another tree.
    let base = rightBase ? drawn.fingerprint : ViewNode.text("another").fingerprint
    module.draw(ViewTreeDiff(base: base, root: .children([.kept(from: 0, count: 99)])))
    let process = module.process
    for _ in 0..<1000 where !bench.text.contains("stopped") { try await Task.sleep(nanoseconds: 10_000_000) }
    guard case .ended(let failure) = process.state else {
      Issue.record("the plugin was not stopped: \(process.state)")
      return
    }
    let why = rightBase ? "it keeps 99 children from 0 of the stack at the root" : "made from another tree"
    #expect(failure.cause.contains("changes to the view of products:search that do not apply"), "\(failure.cause)")
    #expect(failure.cause.contains(why), "\(failure.cause)")
    #expect(bench.text.contains("stopped"))
    try await bench.runtime.act(.tap(button: PluginFailure.restartButton))
    let restarted = try #require(bench.runtime.top?.remote)
    #expect(restarted !== module && restarted.changesDrawn == 0)
    try await bench.runtime.act(.tap(button: "next"))
    #expect(bench.text.contains("page 3 of"), "restored to page 2, then Next: \(bench.text)")
    #expect(restarted.changesDrawn >= 1)
  }
}
