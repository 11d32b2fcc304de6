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
}
