import PackagePlugin

/// Makes each sample plugin carry a fresh manifest: before its entry target
/// (`NAMEEntry`) compiles, runs `sample-manifests NAME` to write the Swift
/// file holding its contracts in the `vivarium_manifest` section.
@main struct ManifestPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let tool = try context.tool(named: "sample-manifests")
    let output = context.pluginWorkDirectoryURL.appending(path: "Manifest.swift")
    let name = String(target.name.dropLast("Entry".count))
    return [
      .buildCommand(
        displayName: "Writing the manifest of \(name)", executable: tool.url, arguments: [name, output.path],
        inputFiles: [tool.url], outputFiles: [output])
    ]
  }
}
