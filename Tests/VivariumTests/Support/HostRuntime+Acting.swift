import Testing
import ViperKit

@testable import VivariumRuntime

extension HostRuntime {
  /// Sends `event` to the module on top (or the one its address names) and
  /// waits until what it caused in plugin processes has been answered and
  /// carried out: acting as a person does, then looking.
  func act(_ event: ViewEvent) async throws {
    try send(event)
    await settleCalls()
  }

  /// Waits until what the host asked of modules in plugin processes has
  /// been answered and carried out, within ``TestServices/settleLimit``:
  /// a bound on a hang, never reached on a machine however busy.
  func settleCalls() async { await settleCalls(limit: TestServices.settleLimit) }

  /// Lets `seconds` pass on the modules' virtual clock, settling after
  /// each wake within ``TestServices/settleLimit``.
  func letTimePass(_ seconds: Double) async { await letTimePass(seconds, settleLimit: TestServices.settleLimit) }

  /// Sends `event` as ``act(_:)`` does, and waits for the modules' work
  /// too (a business service's answer), as a script line does; records an
  /// issue naming the work still running when it does not settle.
  func actUntilIdle(_ event: ViewEvent) async throws {
    try send(event)
    await settleAll()
  }

  /// Waits for the modules' work and the calls into plugin processes,
  /// within ``TestServices/settleLimit``.
  func settleAll() async {
    let busy = await settleWork(limit: TestServices.settleLimit)
    #expect(busy.isEmpty, "still running: \(busy)")
  }
}
