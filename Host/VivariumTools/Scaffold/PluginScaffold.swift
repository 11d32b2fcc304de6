import Foundation
import ViperKitHosting

/// Writes a new plugin package: one VIPER module with its contract, every
/// role in a file of its own, the factory and entry point, a test using the
/// test kit, and a README. It builds with `swift build` as written, loads in
/// this host and passes `vivarium check` (Generamba's templates do the same
/// for iOS modules).
package struct PluginScaffold: Sendable {
  /// Why a plugin cannot be created as asked, with what to do instead.
  package struct ScaffoldError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence for the person.
    package let message: String
    /// The message.
    package var description: String { message }
  }

  /// The plugin and module name, UpperCamelCase.
  package let name: String
  /// The module's URN pattern.
  package let pattern: URNPattern
  /// The SDK package directory the new package depends on.
  package let sdkPath: String

  /// Names that would clash with the SDK, the toolchain or Swift itself.
  static let reserved: Set<String> = [
    "ViperKit", "ViperKitTestKit", "CViperKit", "Foundation", "Swift", "Glibc", "Dispatch", "Testing", "XCTest",
    "Synchronization", "Vivarium", "VivariumSupport", "VivariumWire", "VivariumLoading", "VivariumPluginSide",
    "VivariumRuntime", "VivariumTools", "VivariumApp", "VivariumTerminal", "SDK", "TestKit",
  ]

  /// Swift keywords, which a URN placeholder may be named but a variable
  /// may not, unless in backquotes.
  static let keywords: Set<String> = [
    "as", "associatedtype", "break", "case", "catch", "class", "continue", "default", "defer", "deinit", "do", "else",
    "enum", "extension", "fallthrough", "false", "fileprivate", "for", "func", "guard", "if", "import", "in", "init",
    "inout", "internal", "is", "let", "nil", "open", "operator", "private", "protocol", "public", "repeat",
    "rethrows", "return", "self", "Self", "static", "struct", "subscript", "super", "switch", "throw", "throws",
    "true", "try", "typealias", "var", "where", "while", "Any", "some", "any",
  ]

  /// The optional argument the new module pushes itself with, to show one entry.
  static let entryArgument = "entry"

  /// Validates `name` and `urn`.
  package init(name: String, urn: String, sdkPath: String) throws(ScaffoldError) {
    try PluginScaffold.validate(name: name)
    do {
      pattern = try URNPattern(parsing: urn)
    } catch {
      throw ScaffoldError(message: "--urn: \(error.description)")
    }
    guard !pattern.placeholders.contains(PluginScaffold.entryArgument) else {
      throw ScaffoldError(
        message:
          "--urn: the placeholder {\(PluginScaffold.entryArgument)} is the name of the argument the new module pushes itself with; name it otherwise, such as {\(PluginScaffold.entryArgument)ID}"
      )
    }
    self.name = name
    self.sdkPath = sdkPath
  }

  /// Refuses a name that is not UpperCamelCase or that the SDK, the
  /// toolchain or Swift takes.
  static func validate(name: String) throws(ScaffoldError) {
    guard name.range(of: "^[A-Z][A-Za-z0-9]{0,39}$", options: .regularExpression) != nil else {
      throw ScaffoldError(
        message:
          "'\(name)' is not a plugin name: use 1 to 40 letters and digits starting with a capital letter, such as Weather or OrderHistory"
      )
    }
    guard !PluginScaffold.reserved.contains(name) else {
      throw ScaffoldError(message: "'\(name)' is taken by the SDK or the toolchain; choose another name")
    }
  }

  /// Writes the package into `directory`, which must not exist or be empty.
  /// Nothing is written when it refuses.
  package func write(to directory: String) throws(ScaffoldError) {
    try PluginScaffold.write(files(), to: directory)
  }

  /// Writes `files` (paths relative to `directory`) into `directory`, which
  /// must not exist or be empty; nothing is written when it refuses.
  static func write(_ files: [(path: String, contents: String)], to directory: String) throws(ScaffoldError) {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
      guard isDirectory.boolValue, (try? manager.contentsOfDirectory(atPath: directory))?.isEmpty == true else {
        throw ScaffoldError(
          message:
            "\(directory) already exists and is not an empty directory; nothing was written. Choose another --dir")
      }
    }
    do {
      for (path, contents) in files {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
        try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: url, options: .withoutOverwriting)
      }
    } catch {
      throw ScaffoldError(message: "could not write \(directory): \(error.localizedDescription)")
    }
  }

  /// Every file of the package, by path relative to its directory.
  package func files() -> [(path: String, contents: String)] {
    let source = "Sources/\(name)/\(name)"
    return [
      ("Package.swift", packageManifest),
      ("exports.map", exportsMap),
      (".gitignore", ".build/\n.swiftpm/\nPackage.resolved\n"),
      ("README.md", readme),
      ("\(source)Contract.swift", contractFile),
      ("\(source)View.swift", viewFile),
      ("\(source)Presenter.swift", presenterFile),
      ("\(source)Interactor.swift", interactorFile),
      ("\(source)Router.swift", routerFile),
      ("\(source)Factory.swift", factoryFile),
      ("Sources/\(name)EntryPoint/\(name)EntryPoint.swift", entryFile),
      ("Sources/\(name)Manifest/main.swift", manifestTool),
      ("Plugins/Manifest/Manifest.swift", manifestPlugin),
      ("Tests/\(name)Tests/\(name)Tests.swift", testFile),
    ]
  }

  /// A URN the pattern matches, with `sample` in each placeholder.
  package var sampleURN: String {
    pattern.segments.map { if case .literal(let text) = $0 { text } else { "sample" } }.joined(separator: ":")
  }
}
