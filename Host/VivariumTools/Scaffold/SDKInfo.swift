import CViperKit
import Foundation
import ViperKit
import VivariumSupport

/// Where the SDK a plugin author builds against lives, and what this host
/// accepts: what `vivarium sdk` prints (PostgreSQL's `pg_config` plays the
/// same part for its extensions).
package struct SDKInfo: Encodable, Sendable {
  /// The ViperKit version of this host.
  package let version: String
  /// The SDK package directory (`.package(path:)` of a plugin).
  package let packagePath: String
  /// The hosting package directory: what a plugin's manifest tool links.
  package let hostingPath: String
  /// The test kit package directory.
  package let testKitPath: String
  /// Whether the SDK package is still at `packagePath`.
  package let packageExists: Bool
  /// The compiler identity plugins must match.
  package let compiler: String
  /// The plugin ABI version.
  package let abiVersion: Int
  /// The rule plugins are loaded by.
  package let compatibility: String

  /// The SDK of this host: `VIVARIUM_SDK` in `environment` when set, else the
  /// `Host/SDK` of the source tree this host was built from.
  package init(environment: [String: String]) {
    let path = environment["VIVARIUM_SDK"].flatMap { $0.isEmpty ? nil : $0 } ?? SDKInfo.builtFrom
    let current = ViperKitVersion.current
    version = current.description
    packagePath = path
    hostingPath = path + "/Hosting"
    testKitPath = path + "/TestKit"
    var isDirectory: ObjCBool = false
    packageExists =
      FileManager.default.fileExists(atPath: path + "/Package.swift", isDirectory: &isDirectory)
      && !isDirectory.boolValue
    compiler = swiftCompilerIdentity()
    abiVersion = Int(VK_PLUGIN_ABI_VERSION)
    let minors = current.minor == 0 ? "" : " to \(current.major).\(current.minor)"
    compatibility = "loads plugins built against ViperKit \(current.major).0\(minors) with the same Swift compiler"
  }

  /// `Host/SDK` of the source tree this file was compiled in.
  static var builtFrom: String {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("Host/SDK").path
  }

  /// The lines `vivarium sdk` prints.
  package func text(style: TextStyle) -> String {
    var lines = [
      style.bold("ViperKit \(version)"),
      "SDK package       \(packagePath)",
      "                  .package(path: \"\(packagePath)\") → .product(name: \"ViperKit\", package: \"SDK\")",
      "Hosting package   \(hostingPath)",
      "                  .package(path: \"\(hostingPath)\") → .product(name: \"ViperKitHosting\", package: \"Hosting\")",
      "Test kit package  \(testKitPath)",
      "                  .package(path: \"\(testKitPath)\") → .product(name: \"ViperKitTestKit\", package: \"TestKit\")",
      "Swift compiler    \(compiler)",
      "Plugin ABI        \(abiVersion)",
      "Compatibility     \(compatibility)",
    ]
    if !packageExists {
      lines.append(
        style.tone(
          .warning,
          "The SDK package is not at \(packagePath) any more; set VIVARIUM_SDK to the Host/SDK folder of a Vivarium checkout at ViperKit \(version)."
        ))
    }
    return lines.joined(separator: "\n")
  }
}
