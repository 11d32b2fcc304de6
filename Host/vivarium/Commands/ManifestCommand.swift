import Foundation
import ViperKit
import ViperKitHosting
import VivariumLoading
import VivariumSupport

/// `vivarium manifest`: the manifest a plugin should carry, or whether it does.
enum ManifestCommand: Command {
  static let name = "manifest"
  static let summary = "Print the manifest a plugin should carry, as JSON or Swift, or check the one it carries."
  static let synopsis = "vivarium manifest PLUGIN.so [--swift | --check] [--json]"
  static let details = """
    A plugin that carries its contracts as a manifest in the ELF section vivarium_manifest
    is routed the first time the host sees it without running any of its code; the host
    checks the manifest against the plugin's contracts when it first builds one of its
    modules, and refuses a plugin whose manifest is stale. This command loads the plugin
    in a child process and prints the manifest its contracts make: JSON by default, or
    with --swift a Swift file to add to the sources of a plugin built some other way (a
    package made by 'vivarium new' writes it on every build: do not add it there too).
    --check says whether the manifest the plugin carries agrees with its contracts.
    """
  static let swift = FlagOption("swift", "Print the manifest as a Swift source file to add to the plugin's target.")
  static let check = FlagOption("check", "Check the manifest the plugin carries against its contracts.")
  /// Accepted for scripts that ask for JSON everywhere: it is the default.
  static let json = CommonOptions.json.described("Print the manifest as JSON (the default).")
  static let options: [any CommandOption] = [swift, check, json]
  static let exitCodes = """
    0 printed, or the manifest agrees; 1 the plugin was refused, or (with --check) carries no manifest or one \
    that disagrees with its contracts (each difference on stderr); 2 usage error.
    """

  static func run(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
      throw UsageError("give one plugin file, e.g. 'vivarium manifest .build/debug/libNotes.so'")
    }
    let (declared, carried) = PluginManifest.inspect(
      path, probe: PluginProbe(executable: PluginCatalogLoader.executablePath))
    let manifest: PluginManifest
    switch declared {
    case .failure(let rejection):
      for reason in rejection.reasons {
        console.error(name, "\(path) was refused (\(rejection.kind.rawValue)): \(reason)")
      }
      return ExitCode.failure
    case .success(let value): manifest = value
    }
    guard arguments.has(check) else {
      console.out(
        arguments.has(swift) ? manifest.swiftSource : String(decoding: manifest.json, as: UTF8.self))
      return ExitCode.success
    }
    let file = PathName.lastComponent(path)
    switch carried {
    case nil:
      console.error(
        name,
        "\(path) carries no manifest; \(ManifestAdvice.remake(path))"
      )
      return ExitCode.failure
    case .failure(let rejection)?:
      for reason in rejection.reasons { console.error(name, "\(path): \(reason)") }
      return ExitCode.failure
    case .success(let record)?:
      let differences = PluginManifest.differences(
        record, from: manifest.contracts, hosts: manifest.hosts, provides: manifest.provides,
        topics: PluginTopics(manifest), path: path)
      for difference in differences { console.error(name, "\(path): \(difference)") }
      guard differences.isEmpty else {
        console.error(name, "\(ManifestAdvice.remake(path))")
        return ExitCode.failure
      }
      console.out(
        "\(file) carries a manifest that agrees with its \(Plural.count(manifest.contracts.count, "contract"))")
      return ExitCode.success
    }
  }
}
