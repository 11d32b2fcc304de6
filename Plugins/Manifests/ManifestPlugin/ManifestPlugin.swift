import PackagePlugin

/// Makes each sample plugin carry a fresh manifest: before its entry target
/// (`NAMEEntryPoint`) compiles, runs `sample-manifests NAME` to write the Swift
/// file holding its contracts in the `vivarium_manifest` section.
@main struct ManifestPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let tool = try context.tool(named: "sample-manifests")
    let output = context.pluginWorkDirectoryURL.appending(path: "Manifest.swift")
    let suffix = "EntryPoint"
    guard target.name.hasSuffix(suffix) else {
      throw ManifestPluginError(
        description: "ManifestPlugin applies to a sample's entry-point target, NAME\(suffix); \(target.name) is not one"
      )
    }
    let name = String(target.name.dropLast(suffix.count))
    return [
      .buildCommand(
        displayName: "Writing the manifest of \(name)", executable: tool.url, arguments: [name, output.path],
        inputFiles: [tool.url], outputFiles: [output])
    ]
  }
}

/// Why the plugin cannot make a manifest for a target.
struct ManifestPluginError: Error, CustomStringConvertible {
  let description: String
}
