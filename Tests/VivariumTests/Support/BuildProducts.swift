import Foundation
import ViperKit
import VivariumApp
import VivariumLoading
import VivariumSupport

/// Paths of what `swift build` / `swift test` produced: the test bundle runs
/// from the same products directory as the host and the sample plugins.
enum BuildProducts {
  static let directory: String = {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return PathName.parent(executable)
  }()

  /// The host built with the tests. Every child a test starts, from here
  /// on, may write in ``TemporaryDirectory/root``, where the tests' C
  /// plugins leave their marks (``ProcessConfinement/writableVariable``):
  /// a plugin process is otherwise confined to reading its own files.
  static let vivarium: String = {
    ProcessConfinement.writableForChildren.withLock { $0 = TemporaryDirectory.root }
    return directory + "/vivarium"
  }()
  /// The bundled plugins that behave, as Package.swift lists them: each must
  /// pass every conformance check.
  static let pluginNames = [
    "ItemsList", "ItemsDetail", "Login", "Dashboard", "ProductSearch", "Feed", "Wallet", "Profile", "Weather",
  ]
  /// The bundled plugins that crash on purpose (a conformance check taps their
  /// buttons, so they are never checked); built beside the others.
  static let faultyPluginNames = ["Faulty", "FaultyFrame"]
  /// Every bundled plugin, as the build folder holds them.
  static let builtPluginNames = pluginNames + faultyPluginNames
  static let itemsList = directory + "/libItemsList.so"
  static let itemsDetail = directory + "/libItemsDetail.so"
  static let viperKit = directory + "/libViperKit.so"

  /// The repository root, from this file's location.
  static let repository: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.path
  }()

  /// The recorded answers the demo's plugins replay (Plugins/demo-http):
  /// every child a test starts, and every runtime ``TestServices`` makes,
  /// answers http from these, so no test reaches the network.
  static let demoHTTP = repository + "/Plugins/demo-http"

  /// The sample plugins loaded once for the whole test run.
  static let sampleCatalog = PluginCatalog(outcomes: [itemsList, itemsDetail].map { PluginLoader().load($0) })
}

/// A fresh directory under the system's temporary directory, mode 0700.
final class TemporaryDirectory: Sendable {
  let path: String

  init() throws {
    var template = Array((TemporaryDirectory.root + "/vivarium-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// This test run's folder of temporary directories, the one folder its
  /// children's plugins may write in (``ProcessConfinement/writableVariable``):
  /// where the tests' C plugins leave their marks. Removed at exit.
  static let root: String = {
    let path = NSTemporaryDirectory() + "/vivarium-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: TemporaryDirectory.root) }
    return path
  }()

  /// Writes `bytes` to `name` in the directory and returns its path.
  @discardableResult
  func write(_ name: String, _ bytes: Data, mode: Int = 0o644) throws -> String {
    let file = path + "/" + name
    try bytes.write(to: URL(fileURLWithPath: file))
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
    return file
  }

  /// Copies `source` into the directory as `name` and returns its path.
  @discardableResult
  func copy(_ source: String, as name: String) throws -> String {
    try write(name, try Data(contentsOf: URL(fileURLWithPath: source)))
  }
}

extension BuildProducts {
  /// Every bundled plugin, as the host finds them next to its executable.
  static let demoCatalog = PluginCatalog(
    outcomes: PluginDiscovery(commandLine: [], environment: [:], executable: vivarium).load(with: PluginLoader()))

  /// A plugin directory like Scripts/demo makes: links to the built plugins
  /// and the demo app manifest.
  static func demoPluginDirectory() throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
    let result = try ProcessRunner.run(
      repository + "/Scripts/make-plugin-dir", [BuildProducts.directory, directory.path])
    guard result.status == 0 else { throw CPluginBuilder.CompileError(message: result.stderr) }
    return directory
  }
}
