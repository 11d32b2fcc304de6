import Foundation
import Glibc
import Synchronization
import VivariumLoading
import VivariumRuntime
import VivariumServe
import VivariumSupport
import VivariumTerminal
import VivariumWeb

/// `vivarium serve`: the app served to browser tabs, each a session of its
/// own on one host.
enum ServeCommand: Command {
  static let name = "serve"
  static let summary = "Serve the app to web browsers: each tab a session of its own."
  static let synopsis =
    "vivarium serve [--plugins DIR]... [--port N] [--host ADDRESS] [--data DIR] [--new-token] [--watch [--build PACKAGE_DIR]] [--in-process | --no-sandbox] [--allow PLUGIN[:PERMISSION]]..."
  static let details = """
    Serves the app over HTTP and WebSocket and prints the address to open, which
    carries a random token: every request needs it (the page keeps it in a cookie
    once opened). The token is kept in the data directory, so that open tabs
    reconnect after a restart; --new-token replaces it. Each browser tab is a session of its own (its own screens and
    deep link, in the address bar; back and forward go back and forward in
    the app), all of them sharing the plugins, their processes and what they
    saved. A tab that loses its connection continues its session when it
    reconnects (within 3 minutes); after the server restarts, each tab gets
    its screens back. With --watch, a rebuilt plugin is reloaded in every
    tab. It listens on 127.0.0.1 unless --host says otherwise; on any other
    address the connection is not encrypted: put a reverse proxy with TLS in
    front. Ends on Ctrl-C (SIGINT) or SIGTERM.
    """
  static let port = ValueOption("port", "N", "Listen on port N (default 8080; 0 picks a free one).")
  static let newToken = FlagOption(
    "new-token",
    "Make a new token, so that the addresses given before stop working (the token is kept in the data directory otherwise)."
  )
  static let address = ValueOption(
    "host", "ADDRESS", "Listen on ADDRESS (an IPv4 or IPv6 address; default 127.0.0.1, this machine only).")
  static let options: [any CommandOption] =
    [
      CommonOptions.plugins, port, address, CommonOptions.data, newToken, Watching.watch, Watching.build,
      CommonOptions.noCache,
    ]
    + HostingOptions.all
  static let exitCodes = """
    0 ended by SIGINT or SIGTERM; 1 the address could not be listened on, a --plugins path does not exist, or the --build package does not build; 2 usage error.
    """

  /// The default port.
  static let defaultPort: UInt16 = 8080

  /// How long the saved screens of a tab nobody came back for are kept, in
  /// seconds: removed when the server starts.
  static let savedTabsKeptFor: Double = 7 * 86_400

  static func run(_ given: ParsedArguments, _ console: Console) async throws -> Int32 {
    guard given.positionals.isEmpty else { throw UsageError("unexpected argument '\(given.positionals[0])'") }
    let (arguments, builder) = try Watching.prepare(given, console, command: name)
    let portText = arguments.all(port).last
    guard let portNumber = portText.map({ UInt16($0) }) ?? defaultPort else {
      throw UsageError("--port is '\(portText ?? "")'; give a port number from 0 to 65535")
    }
    let listenAddress = arguments.all(address).last ?? "127.0.0.1"
    guard let setup = try RuntimeSetup.app(arguments, console, command: name) else { return ExitCode.failure }
    let (hosting, discovery, manifest, runtime) = (setup.hosting, setup.discovery, setup.manifest, setup.runtime)
    // The host is served to tabs, each a session of its own: the session
    // the setup made shows nothing.
    runtime.shutdown()
    let host = runtime.host
    NavigationStore.removeTabs(
      dataDirectory: host.services.dataDirectory, directories: discovery.directories, olderThan: savedTabsKeptFor)
    let unconfined = HostingOptions.unconfinedBy(hosting)
    let token = try Self.token(in: host.services.dataDirectory, new: arguments.has(newToken))
    let app = WebApp(
      host: host, token: token, start: manifest?.start, scheme: manifest?.scheme,
      directories: discovery.directories, status: unconfined.map { "plugins not confined (\($0))" })
    let watching =
      arguments.has(Watching.watch)
      ? Watching(host: host, directories: discovery.directories, hosting: hosting, builder: builder) {
        [weak host] text, tone in
        for session in host?.sessions ?? [] {
          session.notifications.notice(text, tone: tone)
          session.onScreenChanged()
        }
      } : nil
    defer { watching?.stop() }
    // The server's log lines come from its own thread: straight to stderr.
    let prefix = "vivarium \(name): "
    let server = WebServer(
      host: listenAddress, port: portNumber,
      log: { line in FileHandle.standardError.write(Data((prefix + line + "\n").utf8)) }, handler: app)
    let bound: UInt16
    do {
      bound = try server.start()
    } catch {
      console.error(name, "cannot listen on \(listenAddress) port \(portNumber): \(error)")
      return ExitCode.failure
    }
    defer {
      server.stop()
      app.stop()
    }
    if !Self.isLoopback(listenAddress) {
      console.warning(
        name,
        "listening on \(listenAddress): the connection is not encrypted; put a reverse proxy with TLS in front of it")
    }
    if hosting == nil { console.warning(name, "plugins are not confined (--in-process): each may do whatever you may") }
    console.out("Open \(app.address(host: listenAddress, port: bound)) in a browser; Ctrl-C stops serving.")
    let signal = await Self.terminatingSignal()
    console.out("Stopped by signal \(signal).")
    return ExitCode.success
  }

  /// The file in the data directory that keeps the server's token.
  static let tokenFile = "state/serve-token"

  /// The token kept in `dataDirectory` (so that open tabs reconnect after
  /// a restart), or a new one kept there when there is none, it cannot be
  /// read as a token, or `new` says so.
  static func token(in dataDirectory: String, new: Bool) throws(CommandFailure) -> RandomToken {
    let path = dataDirectory + "/" + tokenFile
    if !new, case .data(let data) = FileContents.read(path, limit: 1024),
      let kept = RandomToken(
        text: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    {
      return kept
    }
    let token = RandomToken()
    do {
      try AtomicFile.write(Data((token.text + "\n").utf8), to: path)
    } catch {
      throw CommandFailure("cannot keep the server's token in \(path): \(error)")
    }
    return token
  }

  /// Whether `address` is this machine only.
  static func isLoopback(_ address: String) -> Bool {
    address == "localhost" || address == "::1" || address.hasPrefix("127.")
  }

  /// Waits for SIGINT or SIGTERM.
  private static func terminatingSignal() async -> Int32 {
    await withCheckedContinuation { continuation in
      let once = Mutex(Optional(continuation))
      _ = SignalPipe.start([SIGINT, SIGTERM]) { signal in
        once.withLock { $0.take() }?.resume(returning: signal)
      }
    }
  }
}
