import Dispatch

/// The app's side of a server: its handler and the handlers of the
/// WebSockets it took, used on the main actor only. The I/O thread
/// reaches it through ``onMain(_:)``.
///
/// Sendable, checked by hand: ``handler`` is a constant whose every method
/// is main-actor isolated (``WebHandler`` is), so the compiler lets it be
/// called on the main actor only; off it, the handler is only held.
/// ``sockets`` is main-actor isolated.
final class AppBridge: @unchecked Sendable {
  /// The app.
  private let handler: any WebHandler
  /// The handler of each open WebSocket, by connection.
  @MainActor private var sockets: [Int: any WebSocketHandler] = [:]

  /// A bridge to `handler`.
  init(handler: any WebHandler) {
    self.handler = handler
  }

  /// The app's response to a request.
  @MainActor func respond(to request: HTTPRequestHead, body: [UInt8]) -> HTTPResponse {
    handler.respond(to: request, body: body)
  }

  /// Asks the app to take a WebSocket: nil when it did (its handler then
  /// gets the connection's messages), or the response refusing it.
  @MainActor func upgrade(_ request: HTTPRequestHead, connection: WebSocketConnection) -> HTTPResponse? {
    switch handler.upgrade(request, connection: connection) {
    case .success(let socket):
      sockets[connection.id] = socket
      return nil
    case .failure(let refusal):
      return refusal.response
    }
  }

  /// Gives connection `id`'s handler a message.
  @MainActor func received(_ text: String, on id: Int) {
    sockets[id]?.received(text)
  }

  /// Tells connection `id`'s handler it ended, once.
  @MainActor func closed(_ id: Int) {
    sockets.removeValue(forKey: id)?.closed()
  }

  /// Runs `work` on the main actor, after everything sent there before it.
  func onMain(_ work: @escaping @Sendable @MainActor (AppBridge) -> Void) {
    DispatchQueue.main.async {
      MainActor.assumeIsolated { work(self) }
    }
  }
}
