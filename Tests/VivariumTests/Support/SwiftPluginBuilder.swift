import Foundation

/// Compiles the Swift plugins in Tests/VivariumTests/Fixtures with the
/// toolchain's swiftc against the SDK this test run built, as a plugin author
/// outside the repository would.
enum SwiftPluginBuilder {
  /// libBrokenModules.so: one module per module check, each failing only it.
  static let brokenModules = Result { try build("BrokenModules") }
  /// libBrokenPlugin.so: fails contract.unambiguous and warns on speed.load.
  static let brokenPlugin = Result { try build("BrokenPlugin") }

  private static let output: TemporaryDirectory? = try? TemporaryDirectory()

  private static func build(_ name: String) throws -> String {
    guard let output else { throw CPluginBuilder.CompileError(message: "no temporary directory") }
    let fixtures = BuildProducts.repository + "/Tests/VivariumTests/Fixtures/" + name
    let sources = try FileManager.default.contentsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
      .sorted().map { fixtures + "/" + $0 }
    let bin = BuildProducts.directory
    let library = "\(output.path)/lib\(name).so"
    let result = try ProcessRunner.run(
      swiftc,
      [
        "-emit-library", "-parse-as-library", "-swift-version", "6", "-module-name", name, "-I", bin + "/Modules",
        "-Xcc", "-fmodule-map-file=\(bin)/CViperKit.build/module.modulemap",
        "-Xcc", "-I", "-Xcc", BuildProducts.repository + "/Host/SDK/Sources/CViperKit/include",
        "-L", bin, "-lViperKit", "-o", library,
      ] + sources)
    guard result.status == 0 else { throw CPluginBuilder.CompileError(message: result.stderr) }
    return library
  }

  /// swiftc next to the swift on PATH.
  private static let swiftc: String = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for directory in path.split(separator: ":")
    where FileManager.default.isExecutableFile(atPath: "\(directory)/swiftc") {
      return "\(directory)/swiftc"
    }
    return "/usr/bin/swiftc"
  }()
}
