import Foundation
import Glibc

/// One `vivarium serve --port 0` on a plugin directory, its address read
/// from what it prints: for tests that talk to it as browser tabs do.
final class ServeProcess {
  /// The server's process.
  let process = SpawnedProcess()
  /// The port it listens on, on 127.0.0.1.
  let port: UInt16
  /// Its token, from the address it printed.
  let token: String
  /// The plugin directory it serves.
  let plugins: String
  /// The directories it serves from, when it made them: kept until it goes.
  private let owned: [TemporaryDirectory]

  /// The address it printed to open, with its token.
  var address: String { url(path: "") }

  /// The address of the deep link `path` (as a page's address bar shows it), with the token.
  func url(path: String) -> String { "http://127.0.0.1:\(port)/\(path)?token=\(token)" }

  /// A server on the demo's plugin directory (as Scripts/demo makes it) and
  /// a fresh data directory: nobody signed in, nothing remembered.
  static func demo() throws -> ServeProcess {
    let plugins = try BuildProducts.demoPluginDirectory()
    let data = try TemporaryDirectory()
    return try ServeProcess(plugins: plugins.path, data: data.path, arguments: [], owning: [plugins, data])
  }

  /// A server on a plugin directory of its own holding links to the built
  /// plugins `names` (`Faulty`), and no app manifest: a tab opens the deep
  /// link it asks for. `arguments` go after serve's own (`--watch`,
  /// `--response-limit 1`). Fresh data: nothing remembered.
  static func serving(_ names: [String], arguments: [String] = []) throws -> ServeProcess {
    let plugins = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: plugins.path)
    for name in names {
      try FileManager.default.createSymbolicLink(
        atPath: plugins.path + "/lib\(name).so", withDestinationPath: BuildProducts.directory + "/lib\(name).so")
    }
    let data = try TemporaryDirectory()
    return try ServeProcess(plugins: plugins.path, data: data.path, arguments: arguments, owning: [plugins, data])
  }

  /// A server on `plugins` keeping its data in `data`.
  convenience init(plugins: String, data: String) throws {
    try self.init(plugins: plugins, data: data, arguments: [], owning: [])
  }

  private init(plugins: String, data: String, arguments: [String], owning: [TemporaryDirectory]) throws {
    owned = owning
    self.plugins = plugins
    process.executableURL = URL(fileURLWithPath: BuildProducts.vivarium)
    process.arguments = ["serve", "--plugins", plugins, "--data", data, "--port", "0"] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["VIVARIUM_PLUGIN_PATH"] = nil
    environment["VIVARIUM_HTTP"] = "replay:" + BuildProducts.demoHTTP
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    // The first line names the address; a server that prints none within
    // the bound (a hang) is stopped and the test fails.
    var text = ""
    let descriptor = output.fileHandleForReading.fileDescriptor
    let deadline = ContinuousClock.now + .seconds(TestServices.settleLimit)
    while !text.contains("\n"), ContinuousClock.now < deadline {
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&entry, 1, 100) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 4096)
      let count = read(descriptor, &buffer, buffer.count)
      guard count > 0 else { break }
      text += String(decoding: buffer[0..<count], as: UTF8.self)
    }
    guard let match = text.firstMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+)/),
      let port = UInt16(match.1)
    else {
      process.terminate()
      throw ServeTestError(description: "vivarium serve printed no address: \(text)")
    }
    self.port = port
    token = String(match.2)
  }

  /// Ends the server as Ctrl-C does, and waits for it.
  func stop() {
    process.interrupt()
    process.waitUntilExit()
  }
}

/// A server test's failure to reach the server.
struct ServeTestError: Error, CustomStringConvertible {
  let description: String
}
