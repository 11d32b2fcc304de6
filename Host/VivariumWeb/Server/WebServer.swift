import Glibc
import Synchronization

/// A small HTTP/1.1 and WebSocket server: the app served to browser tabs,
/// each WebSocket a person's session.
///
/// It never waits on a client and never trusts one. One thread of its own
/// polls every socket, all nonblocking; what a client does not read waits
/// in its queue, up to ``WebServerLimits/pendingBytes``. Every request's
/// `Host` must be one of the server's own (against DNS rebinding), every
/// WebSocket's `Origin` the server's own origin (against cross-site
/// WebSocket hijacking), and each is checked before the app hears of it.
/// A malformed request or frame, a client over a limit, closes that
/// connection only, with a log line saying why.
///
/// The app (``WebHandler``) is asked on the main actor, one call at a time,
/// through the main dispatch queue: the main actor must be run by that
/// queue (as `dispatchMain`, a main run loop or Swift's async `main` do).
/// `log` is called on the server's thread and must not wait on the main actor.
package final class WebServer: Sendable {
  /// Where the server is, or was.
  private enum State {
    /// Made, not started.
    case ready
    /// Serving on `port`, on `thread`, which `mailbox` wakes.
    case running(mailbox: ServerMailbox, thread: pthread_t, port: UInt16)
    /// Stopped: it does not start again.
    case stopped
  }

  /// The address to bind.
  private let host: String
  /// The port to bind (0: any free one).
  private let port: UInt16
  /// What every client is held to.
  private let limits: WebServerLimits
  /// Where log lines go.
  private let log: @Sendable (String) -> Void
  /// The app, on the main actor.
  private let bridge: AppBridge
  /// Where the server is.
  private let state = Mutex<State>(.ready)

  /// A server for `host` (an IPv4/IPv6 literal or "localhost") on `port` (0: any free one).
  package init(
    host: String, port: UInt16, limits: WebServerLimits = WebServerLimits(),
    log: @escaping @Sendable (String) -> Void, handler: any WebHandler
  ) {
    self.host = host
    self.port = port
    self.limits = limits
    self.log = log
    bridge = AppBridge(handler: handler)
  }

  /// Stops the server, if it was not stopped.
  deinit {
    stop()
  }

  /// Binds and starts serving on a thread of its own; the bound port.
  /// Started already, the port it is serving on; stopped, it throws.
  package func start() throws(WebServerError) -> UInt16 {
    try state.withLock { state throws(WebServerError) -> UInt16 in
      switch state {
      case .running(_, _, let port): return port
      case .stopped: throw WebServerError(.cannotListen, "the server was stopped")
      case .ready: break
      }
      let (listener, bound) = try Socket.listen(host: host, port: port)
      guard let mailbox = ServerMailbox() else {
        close(listener)
        throw WebServerError(.cannotListen, "cannot make a pipe: \(Socket.errorText())")
      }
      let loop = ServerLoop(
        listener: listener, host: host, port: bound, mailbox: mailbox, limits: limits, log: log, bridge: bridge)
      // The loop is handed over whole: from here only the new thread touches it.
      let context = Unmanaged.passRetained(loop).toOpaque()
      var thread = pthread_t()
      let created = pthread_create(
        &thread, nil,
        { context in
          Unmanaged<ServerLoop>.fromOpaque(context!).takeRetainedValue().run()
          return nil
        }, context)
      guard created == 0 else {
        Unmanaged<ServerLoop>.fromOpaque(context).release()
        close(listener)
        mailbox.end()
        throw WebServerError(.cannotListen, "cannot start a thread: \(Socket.errorText(created))")
      }
      state = .running(mailbox: mailbox, thread: thread, port: bound)
      return bound
    }
  }

  /// Stops: closes the listener and every connection (their handlers told
  /// `closed()`, on the main actor, after this returns). Returns once the
  /// server's thread has ended (a call while another is stopping the
  /// server returns at once); never waits on the main actor.
  package func stop() {
    let running = state.withLock { state -> (ServerMailbox, pthread_t)? in
      defer { state = .stopped }
      guard case .running(let mailbox, let thread, _) = state else { return nil }
      return (mailbox, thread)
    }
    guard let (mailbox, thread) = running else { return }
    mailbox.post(.stop)
    pthread_join(thread, nil)
  }
}
