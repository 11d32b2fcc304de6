import Foundation
import VivariumHost

/// Builds the runtime a command runs modules in: the services container over
/// the data directory, with the clock fixed when `VIVARIUM_NOW` is set.
enum RuntimeSetup {
  static let data = OptionSpec.value(
    "data", "DIR",
    "Keep storage, settings and the log in DIR. Default: $VIVARIUM_DATA_DIR, else $XDG_DATA_HOME/vivarium, else ~/.local/share/vivarium."
  )

  static func runtime(_ catalog: PluginCatalog, _ arguments: ParsedArguments, _ console: Console) throws -> HostRuntime
  {
    let directory = arguments.all("data").last ?? HostServices.defaultDataDirectory(console.environment)
    var now: Double?
    if let fixed = console.environment["VIVARIUM_NOW"], !fixed.isEmpty {
      guard let date = try? Date(fixed, strategy: .iso8601) else {
        throw UsageError("VIVARIUM_NOW is '\(fixed)'; give a time like 2026-01-31T12:00:00Z, or unset it")
      }
      now = date.timeIntervalSince1970
    }
    return HostRuntime(catalog: catalog, services: HostServices(dataDirectory: directory, now: now))
  }
}
