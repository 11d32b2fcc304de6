import Foundation
import VivariumHost

/// `vivarium check --app DIR`: the whole app a plugin directory makes up.
extension CheckCommand {
  static func checkApp(_ directory: String, _ arguments: ParsedArguments, _ console: Console) throws -> Int32 {
    guard arguments.positionals.isEmpty else {
      throw UsageError(
        "--app checks a whole directory; give plugin files without it ('vivarium check \(arguments.positionals[0])')")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw UsageError("--app takes a plugin directory, and '\(directory)' is not one")
    }
    let (_, catalog) = try PluginCatalogLoader.load(arguments, console, command: name, plugins: [directory])
    var manifest: AppManifest?
    switch AppManifest.find(in: [directory]) {
    case .success(let found): manifest = found
    case .failure(let error): throw CommandFailure(error.description)
    case nil: manifest = nil
    }
    let report = AppCheckReport(directory: directory, flow: AppFlow(catalog: catalog, manifest: manifest))
    if arguments.has("json") {
      console.json(report)
    } else {
      console.out(report.text(style: console.style, width: console.width))
    }
    return report.failed ? ExitCode.failure : ExitCode.success
  }
}
