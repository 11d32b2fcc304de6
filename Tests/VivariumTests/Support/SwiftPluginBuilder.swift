import Foundation

/// Compiles the Swift plugins in Tests/VivariumTests/Fixtures with the
/// toolchain's swiftc against the SDK this test run built, as a plugin author
/// outside the repository would.
enum SwiftPluginBuilder {
  /// libBrokenModules.so: one module per module check, each failing only it.
  static let brokenModules = Result { try build("BrokenModules") }
  /// libBrokenPlugin.so: fails contract.unambiguous and warns on speed.load.
  static let brokenPlugin = Result { try build("BrokenPlugin") }
  /// libChangedProfile.so: the demo's profile:{userID}, with userID an int.
  static let changedProfile = Result { try build("ChangedProfile") }
  /// libManyModules.so: 10,000 modules.
  static let manyModules = Result { try build("ManyModules") }

  private static let output: TemporaryDirectory? = try? TemporaryDirectory()

  private static func build(_ name: String) throws -> String {
    guard let output else { throw CPluginBuilder.CompileError(message: "no temporary directory") }
    return try build(name, into: output.path)
  }

  /// Compiles the fixture `name`, with the extra source files `extra` and
  /// the tests' ``FactoryTable``, into `directory`/lib`name`.so.
  static func build(_ name: String, adding extra: [String] = [], into directory: String) throws -> String {
    let fixtures = BuildProducts.repository + "/Tests/VivariumTests/Fixtures/" + name
    let sources =
      try FileManager.default.contentsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".swift") }
      .sorted().map { fixtures + "/" + $0 } + [
        BuildProducts.repository + "/Tests/VivariumTests/Support/FactoryTable.swift"
      ]
    let bin = BuildProducts.directory
    return try plugin(
      name, sources: sources + extra, into: directory, modules: bin + "/Modules", library: bin,
      moduleMap: "\(bin)/CViperKit.build/module.modulemap",
      include: BuildProducts.repository + "/Host/SDK/Sources/CViperKit/include")
  }

  /// Compiles `sources` into `directory`/libNAME.so against the ViperKit
  /// whose module is in `modules` and library in `library`.
  static func plugin(
    _ name: String, sources: [String], into directory: String, modules: String, library: String, moduleMap: String,
    include: String
  ) throws -> String {
    let output = "\(directory)/lib\(name).so"
    try swiftc(
      [
        "-emit-library", "-parse-as-library", "-swift-version", "6", "-module-name", name, "-I", modules,
        "-Xcc", "-fmodule-map-file=\(moduleMap)", "-Xcc", "-I", "-Xcc", include, "-L", library, "-lViperKit",
        "-o", output,
      ] + sources)
    return output
  }

  /// Runs swiftc, throwing its errors.
  static func swiftc(_ arguments: [String]) throws {
    let result = try ProcessRunner.run(swiftcPath, arguments)
    guard result.status == 0 else { throw CPluginBuilder.CompileError(message: result.stderr) }
  }

  /// swiftc next to the swift on PATH.
  private static let swiftcPath: String = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for directory in path.split(separator: ":")
    where FileManager.default.isExecutableFile(atPath: "\(directory)/swiftc") {
      return "\(directory)/swiftc"
    }
    return "/usr/bin/swiftc"
  }()
}
