import Foundation
import VivariumLoading
import VivariumRuntime
import VivariumSupport
import VivariumTools

/// `vivarium check --app DIR`: the whole app a plugin directory makes up.
extension CheckCommand {
  static func checkApp(_ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    let directories = arguments.all(app)
    guard directories.count == 1 else { throw UsageError("give --app once: one plugin directory is one app") }
    let directory = directories[0]
    guard arguments.positionals.isEmpty else {
      throw UsageError(
        "--app checks a whole directory; give plugin files without it ('vivarium check \(arguments.positionals[0])')")
    }
    let moduleOptions: [any CommandOption] = [strictness, only, skip, timeout, list, inProcess]
    if let option = moduleOptions.first(where: arguments.isGiven) {
      throw UsageError(
        "\(option.spelling) applies to checks of plugin files, which build modules; --app builds none and takes only --json"
      )
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
      throw UsageError("there is no directory '\(directory)' (given with --app); check the path")
    }
    guard isDirectory.boolValue else {
      throw UsageError("--app takes a plugin directory, and '\(directory)' is a file; check files without --app")
    }
    // The app as its files make it: a plugin turned off is checked too, and noted.
    let (_, catalog) = try PluginCatalogLoader.load(
      arguments, console, command: name, plugins: [directory], keepsOff: false)
    let names = Set(catalog.loaded.map(\.name))
    for named in arguments.all(without) where !names.contains(named) {
      throw UsageError(
        "--without '\(named)' names no plugin of \(directory)\(Suggestion.didYouMean(named, among: names.sorted())); give a declared name ('vivarium plugins' lists them)"
      )
    }
    let turnedOff = PluginSwitches(dataDirectory: RuntimeSetup.dataDirectory(arguments, console)).disabled
    let off = Set(arguments.all(without)).union(turnedOff.intersection(names))
    var manifest: AppManifest?
    var problem: ManifestError?
    switch AppManifest.find(in: [directory]) {
    case .success(let found): manifest = found
    case .failure(let error): problem = error
    case nil: break
    }
    let flow = AppFlow(catalog: catalog, manifest: manifest, manifestProblem: problem)
    let report = AppCheckReport(directory: directory, flow: flow, without: off)
    if arguments.has(CommonOptions.json) {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.width))
    }
    return report.failed ? ExitCode.failure : ExitCode.success
  }
}
