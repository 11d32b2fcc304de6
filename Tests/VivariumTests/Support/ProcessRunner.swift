import Foundation
import Synchronization
import VivariumLoading

/// The outcome of running a program to completion.
struct ProcessResult {
  let status: Int32
  let stdout: String
  let stderr: String
  /// Whether it ended by itself (`exit`), rather than by a signal: the kill
  /// of ``ProcessRunner/run(_:_:environment:directory:killAfter:)``, or a crash.
  var exited = true
}

enum ProcessRunner {
  /// Runs `executable` with `arguments`, an environment of `environment` added
  /// to this process's (minus VIVARIUM_PLUGIN_PATH), no standard input, and
  /// `directory` (when given) as its working directory. With `killAfter`,
  /// a child still running after that many seconds is killed (SIGKILL): a
  /// test of a hang bounds the hang itself, and asserts on ``ProcessResult/exited``.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
    killAfter seconds: Double? = nil
  ) throws -> ProcessResult {
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: executable)
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.arguments = arguments
    process.environment = Self.environment(environment)
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    if let seconds {
      DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [process] in
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      }
    }
    // Read both pipes before waiting, so a full pipe cannot block the child.
    let read = Data.readingAll(err.fileHandleForReading, concurrentlyWith: out.fileHandleForReading)
    process.waitUntilExit()
    return ProcessResult(
      status: process.terminationStatus, stdout: String(decoding: read.other, as: UTF8.self),
      stderr: String(decoding: read.this, as: UTF8.self), exited: process.terminationReason == .exit)
  }

  /// This process's environment minus VIVARIUM_PLUGIN_PATH and crash
  /// backtraces, with `extra` added: what a child of a test runs with. Its
  /// default data directory (and so its plugin registry cache) is one of
  /// this test run's, not the person's; its http replays the demo's
  /// recordings (``BuildProducts/demoHTTP``).
  static func environment(_ extra: [String: String]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["VIVARIUM_PLUGIN_PATH"] = nil
    environment["SWIFT_BACKTRACE"] = "enable=no"
    environment["VIVARIUM_DATA_DIR"] = testRunData
    environment["VIVARIUM_HTTP"] = "replay:" + BuildProducts.demoHTTP
    // Where the tests' C plugins leave their marks (BuildProducts.vivarium).
    environment[ProcessConfinement.writableVariable] = TemporaryDirectory.root
    return environment.merging(extra) { $1 }
  }

  /// The default data directory of this test run's children.
  static let testRunData: String = {
    let path = NSTemporaryDirectory() + "/vivarium-test-data-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }()

  /// Runs the host built with the tests.
  static func vivarium(_ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws
    -> ProcessResult
  {
    try run(BuildProducts.vivarium, arguments, environment: environment, directory: directory)
  }
}

extension Data {
  /// Reads `handle` to its end while another thread reads `other` to its end.
  static func readingAll(_ handle: FileHandle, concurrentlyWith other: FileHandle) -> (this: Data, other: Data) {
    let box = DataBox()
    let thread = Thread {
      let data = other.readDataToEndOfFile()
      box.data.withLock { $0 = data }
      box.done.signal()
    }
    thread.start()
    let this = handle.readDataToEndOfFile()
    box.done.wait()
    return (this, box.data.withLock { $0 })
  }
}

private final class DataBox: Sendable {
  let data = Mutex(Data())
  let done = DispatchSemaphore(value: 0)
}
