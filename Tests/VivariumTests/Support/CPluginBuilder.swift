import CViperKit
import Foundation
import ViperKit

/// Builds deliberately bad plugins from C, with the SDK's own ABI header, so
/// each rejection path is reached by a real file the host has never seen.
enum CPluginBuilder {
  /// The fields a C plugin's descriptor carries; each defaults to a value the
  /// host accepts, so a test changes exactly one.
  struct Fields {
    var magic = "VK_PLUGIN_MAGIC"
    var abi = "VK_PLUGIN_ABI_VERSION"
    var major = "VIPERKIT_VERSION_MAJOR"
    var minor = "VIPERKIT_VERSION_MINOR"
    var compiler = swiftCompilerIdentity()
    var returnsNull = false
  }

  /// A shared library whose entry returns a descriptor with `fields` and no
  /// Swift plugin type.
  static func plugin(_ fields: Fields, named name: String, in directory: TemporaryDirectory) throws -> String {
    let body =
      fields.returnsNull
      ? "return 0;"
      : """
      static VKPluginDescriptor d;
      d.magic = \(fields.magic); d.abi_version = \(fields.abi);
      d.sdk_major = \(fields.major); d.sdk_minor = \(fields.minor); d.sdk_patch = 0;
      d.swift_compiler = \(cLiteral(fields.compiler)); d.plugin_name = "c-plugin"; d.plugin_type = 0;
      return &d;
      """
    return try plugin(entryBody: body, named: name, in: directory)
  }

  /// A shared library whose entry runs the C statements `entryBody`.
  static func plugin(entryBody: String, named name: String, in directory: TemporaryDirectory) throws -> String {
    let source = """
      #include "ViperKitABI.h"
      __attribute__((visibility("default"))) const VKPluginDescriptor *vivarium_plugin_entry(void) {
        \(entryBody)
      }
      """
    return try compile(source, named: name, in: directory, flags: ["-shared", "-fPIC"])
  }

  /// A plugin whose constructor runs the C statements `constructor` when it
  /// is loaded, before its entry is called; its entry returns a valid
  /// descriptor without a Swift plugin type (refused as `foreign-sdk-copy`).
  /// `<signal.h>`, `<stdio.h>`, `<stdlib.h>`, `<string.h>` and `<unistd.h>`
  /// are included.
  static func plugin(constructor: String, named name: String, in directory: TemporaryDirectory) throws -> String {
    let source = """
      #include <errno.h>
      #include <signal.h>
      #include <stdio.h>
      #include <stdlib.h>
      #include <string.h>
      #include <unistd.h>
      #include "ViperKitABI.h"
      __attribute__((constructor)) static void on_load(void) {
        \(constructor)
      }
      __attribute__((visibility("default"))) const VKPluginDescriptor *vivarium_plugin_entry(void) {
        static VKPluginDescriptor d;
        d.magic = VK_PLUGIN_MAGIC; d.abi_version = VK_PLUGIN_ABI_VERSION;
        d.sdk_major = VIPERKIT_VERSION_MAJOR; d.sdk_minor = VIPERKIT_VERSION_MINOR; d.sdk_patch = 0;
        d.swift_compiler = \(cLiteral(swiftCompilerIdentity())); d.plugin_name = "c-plugin"; d.plugin_type = 0;
        return &d;
      }
      """
    return try compile(source, named: name, in: directory, flags: ["-shared", "-fPIC"])
  }

  /// A plugin `libUser.so` that needs `libhelper.so` (no SONAME, as a plain
  /// `cc -shared` makes it) from `libraryFolder` (relative to the directory),
  /// found through `runPath` (`$ORIGIN`, as SwiftPM links a product with the
  /// libraries it depends on, or `$ORIGIN/../lib`, a prefix layout). Its entry returns a
  /// descriptor without a Swift type, so once loaded it is refused as
  /// `foreign-sdk-copy`.
  static func pluginNeedingALibrary(
    in directory: TemporaryDirectory, runPath: String = "$ORIGIN", libraryFolder: String = "."
  ) throws -> String {
    let folder = directory.path + "/" + libraryFolder
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let helper = try compile(
      "int helper_value(void) { return 42; }\n", named: "libhelper.so", in: directory, flags: ["-shared", "-fPIC"])
    if libraryFolder != "." { try FileManager.default.moveItem(atPath: helper, toPath: folder + "/libhelper.so") }
    let source = """
      #include "ViperKitABI.h"
      int helper_value(void);
      __attribute__((visibility("default"))) const VKPluginDescriptor *vivarium_plugin_entry(void) {
        static VKPluginDescriptor d;
        d.magic = VK_PLUGIN_MAGIC; d.abi_version = VK_PLUGIN_ABI_VERSION + helper_value() - 42;
        d.sdk_major = VIPERKIT_VERSION_MAJOR; d.sdk_minor = VIPERKIT_VERSION_MINOR; d.sdk_patch = 0;
        d.swift_compiler = \(cLiteral(swiftCompilerIdentity())); d.plugin_name = "c-plugin"; d.plugin_type = 0;
        return &d;
      }
      """
    return try compile(
      source, named: "libUser.so", in: directory,
      flags: ["-shared", "-fPIC", "-L", folder, "-lhelper", "-Wl,-rpath,\(runPath)"])
  }

  /// A shared library that does not export the entry symbol.
  static func libraryWithoutEntry(named name: String, in directory: TemporaryDirectory) throws -> String {
    try compile("int helper(void) { return 42; }\n", named: name, in: directory, flags: ["-shared", "-fPIC"])
  }

  /// A relocatable object file (`cc -c`), not a shared library.
  static func objectFile(named name: String, in directory: TemporaryDirectory) throws -> String {
    try compile("int helper(void) { return 42; }\n", named: name, in: directory, flags: ["-c", "-fPIC"])
  }

  private static func compile(_ source: String, named name: String, in directory: TemporaryDirectory, flags: [String])
    throws -> String
  {
    let sourcePath = try directory.write(name + ".c", Data(source.utf8))
    let output = directory.path + "/" + name
    let include = BuildProducts.repository + "/Host/SDK/Sources/CViperKit/include"
    let result = try ProcessRunner.run(compiler, flags + ["-I", include, "-o", output, sourcePath])
    guard result.status == 0 else { throw CompileError(message: result.stderr) }
    try FileManager.default.removeItem(atPath: sourcePath)
    return output
  }

  /// The toolchain's clang next to swiftc when there is one, else `cc`.
  private static let compiler: String = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
    for name in ["clang", "cc", "gcc"] {
      for directory in path.split(separator: ":")
      where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
        return "\(directory)/\(name)"
      }
    }
    return "/usr/bin/cc"
  }()

  private static func cLiteral(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }

  struct CompileError: Error, CustomStringConvertible {
    let message: String
    var description: String { "C compiler failed: \(message)" }
  }
}
