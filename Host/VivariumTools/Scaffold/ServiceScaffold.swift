import Foundation
import ViperKitHosting

/// Writes a new business service, three packages side by side: its
/// interface (`NAMEInterface`: the service with one typed operation, its
/// request and response, its declared failure), a plugin providing it
/// (`NAME`) and a plugin whose module calls it (`NAMEConsumer`). Each
/// plugin depends on the interface by a relative path and on the SDK as
/// ``PluginScaffold``'s package does; each builds, passes its tests and
/// `vivarium check` as written, and the two load together in this host.
package struct ServiceScaffold: Sendable {
  /// The provider plugin's name, UpperCamelCase; the other two packages
  /// are named after it.
  package let name: String
  /// The service's name on the wire: lowercase words, as `weather`.
  package let service: String
  /// The SDK package directory the new packages depend on.
  package let sdkPath: String
  /// The consumer module's URN pattern: `SERVICE:ask:{query}`.
  package let consumerPattern: URNPattern

  /// Validates `name` and `service`.
  package init(name: String, service: String, sdkPath: String) throws(PluginScaffold.ScaffoldError) {
    try PluginScaffold.validate(name: name)
    guard service.range(of: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$", options: .regularExpression) != nil, service.count <= 40
    else {
      throw PluginScaffold.ScaffoldError(
        message:
          "--service: '\(service)' is not a service name: use lowercase words of letters and digits joined by '-', up to 40 characters, such as weather or order-history"
      )
    }
    do {
      consumerPattern = try URNPattern(parsing: "\(service):ask:{\(ServiceScaffold.queryArgument)}")
    } catch {
      throw PluginScaffold.ScaffoldError(message: "--service: \(error.description)")
    }
    self.name = name
    self.service = service
    self.sdkPath = sdkPath
  }

  /// The consumer module's argument: what it asks the service.
  static let queryArgument = "query"
  /// The query the provider answers as written: the consumer's sample URN asks it.
  package static let sampleQuery = "hello"

  /// The interface package's name.
  package var interfaceName: String { name + "Interface" }
  /// The consumer plugin's name.
  package var consumerName: String { name + "Consumer" }
  /// The interface's type, the `ServiceInterface` enum.
  var serviceType: String { name + "Service" }

  /// A URN the consumer module answers, asking what the provider knows.
  package var sampleURN: String { "\(service):ask:\(ServiceScaffold.sampleQuery)" }

  /// Writes the three packages into `directory`, which must not exist or
  /// be empty. Nothing is written when it refuses.
  package func write(to directory: String) throws(PluginScaffold.ScaffoldError) {
    try PluginScaffold.write(files(), to: directory)
  }

  /// Every file of the three packages, by path relative to the directory
  /// holding them.
  package func files() -> [(path: String, contents: String)] {
    let ignored = ".build/\n.swiftpm/\nPackage.resolved\n"
    let provider = "\(name)/Sources/\(name)/\(name)"
    let consumer = "\(consumerName)/Sources/\(consumerName)/\(consumerName)"
    return [
      ("README.md", readme),
      ("\(interfaceName)/Package.swift", interfaceManifest),
      ("\(interfaceName)/.gitignore", ignored),
      ("\(interfaceName)/Sources/\(interfaceName)/\(serviceType).swift", interfaceFile),
      ("\(name)/Package.swift", PluginScaffold.packageManifest(name: name, sdkPath: sdkPath, interface: interfaceName)),
      ("\(name)/exports.map", PluginScaffold.exportsMap),
      ("\(name)/.gitignore", ignored),
      ("\(provider)Provider.swift", providerFile),
      ("\(provider)About.swift", aboutFile),
      ("\(name)/Sources/\(name)EntryPoint/\(name)EntryPoint.swift", PluginScaffold.entryFile(name)),
      ("\(name)/Sources/\(name)Manifest/main.swift", PluginScaffold.manifestTool(name)),
      ("\(name)/Plugins/Manifest/Manifest.swift", PluginScaffold.manifestPlugin(name)),
      ("\(name)/Tests/\(name)Tests/\(name)Tests.swift", providerTestFile),
      (
        "\(consumerName)/Package.swift",
        PluginScaffold.packageManifest(name: consumerName, sdkPath: sdkPath, interface: interfaceName)
      ),
      ("\(consumerName)/exports.map", PluginScaffold.exportsMap),
      ("\(consumerName)/.gitignore", ignored),
      ("\(consumer)Contract.swift", consumerContractFile),
      ("\(consumer)View.swift", consumerViewFile),
      ("\(consumer)Presenter.swift", consumerPresenterFile),
      ("\(consumer)Interactor.swift", consumerInteractorFile),
      ("\(consumer)Factory.swift", consumerFactoryFile),
      (
        "\(consumerName)/Sources/\(consumerName)EntryPoint/\(consumerName)EntryPoint.swift",
        PluginScaffold.entryFile(consumerName)
      ),
      ("\(consumerName)/Sources/\(consumerName)Manifest/main.swift", PluginScaffold.manifestTool(consumerName)),
      ("\(consumerName)/Plugins/Manifest/Manifest.swift", PluginScaffold.manifestPlugin(consumerName)),
      ("\(consumerName)/Tests/\(consumerName)Tests/\(consumerName)Tests.swift", consumerTestFile),
    ]
  }
}
