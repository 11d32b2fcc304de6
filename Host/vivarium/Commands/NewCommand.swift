import Foundation
import VivariumSupport
import VivariumTools

/// `vivarium new`: a new plugin package, outside this repository.
enum NewCommand: Command {
  static let name = "new"
  static let summary =
    "Create a plugin package of your own: one VIPER module, a test, a README; or a business service in three packages."
  static let synopsis = "vivarium new NAME (--urn PATTERN | --service SERVICE) [--dir DIR]"
  static let details = """
    Writes a Swift package for the plugin NAME (UpperCamelCase) with one module answering
    PATTERN (see 'URN syntax' in docs/reference.md; each {placeholder} becomes a required string
    argument): its contract, view, presenter, interactor, router, entity and factory,
    the plugin entry point (target NAMEEntryPoint), the manifest tool and build-tool
    plugin that make every build carry the plugin's manifest (NAMEManifest,
    Plugins/Manifest), a test using the conformance test kit, and a README. It
    builds with 'swift build' against the SDK 'vivarium sdk' names, loads in this host and
    passes 'vivarium check' as written. DIR (default ./NAME) must not exist, or be empty,
    and must be outside the Vivarium checkout; an existing file is never overwritten.
    Scripts/new-plugin does the same from the repository.

    With --service SERVICE instead of --urn, writes a business service
    (docs/services.md) in three packages side by side in DIR (default ./NAME):
    NAMEInterface, the interface package (NAMEService, named SERVICE, with one
    operation, lookup, its request and response types and its declared failure);
    NAME, a plugin providing it (NAMEProvider, and a screen SERVICE:about); and
    NAMEConsumer, a plugin whose module SERVICE:ask:{query} requires it, its
    interactor calling it. Each plugin depends on ../NAMEInterface and on the SDK,
    has its tests (the provider alone, the consumer against a fake provider), and
    builds, passes them and 'vivarium check' as written; the two load together.
    SERVICE is the service's name: lowercase words joined by '-', such as tides.
    """
  static let urn = ValueOption("urn", "PATTERN", "The module's URN pattern, e.g. weather:today:{city}.")
  static let service = ValueOption(
    "service", "SERVICE",
    "Instead of --urn: a business service named SERVICE, in three packages (interface, provider, consumer).")
  static let directory = ValueOption(
    "dir", "DIR", "Where to write the package, or the three of a service (default ./NAME).")
  static let options: [any CommandOption] = [urn, service, directory]
  static let exitCodes =
    "0 written; 1 it could not be written (nothing was); 2 usage error (a bad name, URN or service name)."

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.count == 1 else {
      throw UsageError("give one plugin name, e.g. 'vivarium new Weather --urn weather:today:{city}'")
    }
    let urn = arguments.all(Self.urn).last
    let service = arguments.all(Self.service).last
    if urn != nil, service != nil {
      throw UsageError("give --urn (a plugin with one module) or --service (a business service), not both")
    }
    guard urn != nil || service != nil else {
      throw UsageError(
        "--urn is required: the module's URN pattern, e.g. --urn weather:today:{city} (or --service tides for a business service)"
      )
    }
    let name = arguments.positionals[0]
    let sdk = SDKInfo(environment: console.environment)
    let scaffold: Scaffold
    do {
      if let service {
        scaffold = .service(try ServiceScaffold(name: name, service: service, sdkPath: sdk.packagePath))
      } else {
        scaffold = .plugin(try PluginScaffold(name: name, urn: urn ?? "", sdkPath: sdk.packagePath))
      }
    } catch {
      throw UsageError(error.message)
    }
    let directory = URL(fileURLWithPath: arguments.all(Self.directory).last ?? name).standardizedFileURL.path
    let checkout = URL(fileURLWithPath: sdk.packagePath).deletingLastPathComponent().deletingLastPathComponent().path
    // Compared as real paths, so a link pointing into the checkout is caught.
    let (realDirectory, realCheckout) = (realPath(directory), realPath(checkout))
    if realDirectory == realCheckout || realDirectory.hasPrefix(realCheckout + "/") {
      console.error(
        Self.name,
        "\(directory) is inside the Vivarium checkout (\(checkout)); a plugin of your own goes outside it, --dir ~/\(name)"
      )
      return ExitCode.failure
    }
    guard sdk.packageExists else {
      console.error(
        Self.name,
        "the SDK is not at \(sdk.packagePath); set VIVARIUM_SDK to the Host/SDK folder of a Vivarium checkout")
      return ExitCode.failure
    }
    do {
      switch scaffold {
      case .plugin(let plugin): try plugin.write(to: directory)
      case .service(let service): try service.write(to: directory)
      }
    } catch {
      console.error(Self.name, error.message)
      return ExitCode.failure
    }
    switch scaffold {
    case .plugin(let scaffold):
      console.out(
        """
        Created the plugin \(name) in \(directory), answering \(scaffold.pattern.text).
        Next:
          cd \(directory)
          swift build && swift test
          vivarium check .build/debug/lib\(name).so
          vivarium render \(scaffold.sampleURN) --plugins .build/debug/lib\(name).so
        """)
    case .service(let scaffold):
      let (provider, consumer) = (scaffold.name, scaffold.consumerName)
      let plugins = "\(provider)/.build/debug/lib\(provider).so \(consumer)/.build/debug/lib\(consumer).so"
      console.out(
        """
        Created the service \(scaffold.service) in \(directory): its interface \(scaffold.interfaceName), \
        its provider \(provider) and a consumer, \(consumer), answering \(scaffold.consumerPattern.text).
        Next:
          cd \(directory)
          (cd \(provider) && swift build && swift test)
          (cd \(consumer) && swift build && swift test)
          vivarium check \(plugins)
          vivarium render \(scaffold.sampleURN) --plugins \(provider)/.build/debug/lib\(provider).so \
        --plugins \(consumer)/.build/debug/lib\(consumer).so
        """)
    }
    return ExitCode.success
  }

  /// What `new` writes: a plugin, or a service in three packages.
  private enum Scaffold {
    case plugin(PluginScaffold)
    case service(ServiceScaffold)
  }

  /// `path` with every symbolic link resolved, including those of a part that
  /// does not exist yet (resolved as far as it exists).
  private static func realPath(_ path: String) -> String {
    var existing = path
    var rest: [String] = []
    while true {
      if let resolved = realpath(existing, nil) {
        defer { free(resolved) }
        return ([String(cString: resolved)] + rest.reversed()).joined(separator: "/")
      }
      // "/" and "." are their own parents: nothing above them to resolve
      // (a working directory that was deleted does not resolve).
      let parent = PathName.parent(existing)
      guard parent != existing else { return path }
      rest.append(PathName.lastComponent(existing))
      existing = parent
    }
  }
}
