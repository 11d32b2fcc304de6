/// The package-level files of a new plugin.
extension PluginScaffold {
  var packageManifest: String { PluginScaffold.packageManifest(name: name, sdkPath: sdkPath) }

  /// The Package.swift of the plugin `name`; with `interface`, the plugin
  /// also depends on that interface package, beside it (`../interface`).
  static func packageManifest(name: String, sdkPath: String, interface: String? = nil) -> String {
    let about =
      interface.map {
        """
        // The \(name) plugin for Vivarium. Build it with `swift build`; the plugin is
        // .build/debug/lib\(name).so. The SDK paths come from `vivarium sdk`; the
        // service's interface is the package \($0), beside this one.

        """
      }
        ?? """
        // The \(name) plugin for Vivarium. Build it with `swift build`; the plugin is
        // .build/debug/lib\(name).so. The SDK paths come from `vivarium sdk`.

        """
    let interfacePackage = interface.map { "    .package(path: \"../\($0)\"),\n" } ?? ""
    let interfaceProduct = interface.map { ".product(name: \"\($0)\", package: \"\($0)\")" } ?? ""
    let moduleTarget =
      interface == nil
      ? """
        .target(name: "\(name)", dependencies: [.product(name: "ViperKit", package: "SDK")]),
      """
      : """
        .target(
            name: "\(name)",
            dependencies: [
              \(interfaceProduct), .product(name: "ViperKit", package: "SDK"),
            ]
          ),
      """
    let testDependencies =
      interface == nil
      ? #"["\#(name)", .product(name: "ViperKitTestKit", package: "TestKit")]"#
      : """
      [
              "\(name)", \(interfaceProduct),
              .product(name: "ViperKitTestKit", package: "TestKit"),
            ]
      """
    return """
      // swift-tools-version: 6.0
      \(about)//
      // The module's code is the target \(name); the plugin is \(name)EntryPoint, its
      // entry point, into which the build compiles the plugin's manifest (its
      // contracts, which the host reads without running the plugin): the build
      // plugin Manifest runs \(name)Manifest, which writes it from the code.
      import PackageDescription

      let package = Package(
        name: "\(name)",
        products: [
          .library(name: "\(name)", type: .dynamic, targets: ["\(name)EntryPoint"])
        ],
        dependencies: [
      \(interfacePackage)    .package(path: "\(sdkPath)"),
          .package(path: "\(sdkPath)/Hosting"),
          .package(path: "\(sdkPath)/TestKit"),
        ],
        targets: [
        \(moduleTarget)
          .target(
            name: "\(name)EntryPoint",
            dependencies: ["\(name)", .product(name: "ViperKit", package: "SDK")],
            // Export only the plugin entry (vivarium check: descriptor.exports).
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\\(Context.packageDirectory)/exports.map"])],
            plugins: ["Manifest"]
          ),
          .executableTarget(
            name: "\(name)Manifest",
            dependencies: [
              "\(name)", .product(name: "ViperKit", package: "SDK"),
              .product(name: "ViperKitHosting", package: "Hosting"),
            ]
          ),
          .plugin(name: "Manifest", capability: .buildTool(), dependencies: ["\(name)Manifest"]),
          .testTarget(
            name: "\(name)Tests",
            dependencies: \(testDependencies)
          ),
        ]
      )

      """
  }

  var entryFile: String { PluginScaffold.entryFile(name) }

  static func entryFile(_ name: String) -> String {
    """
    import \(name)
    import ViperKit

    /// The plugin's entry point, the only symbol the host looks up. The build
    /// compiles the plugin's manifest in beside it (Plugins/Manifest).
    @_cdecl("vivarium_plugin_entry")
    public func vivariumPluginEntry() -> UnsafeRawPointer {
      PluginEntry.descriptor(for: \(name)Plugin.self)
    }

    """
  }

  var manifestTool: String { PluginScaffold.manifestTool(name) }

  static func manifestTool(_ name: String) -> String {
    """
    // Writes the Swift file that makes lib\(name).so carry its manifest, from the
    // contracts the code declares. Run by the build (Plugins/Manifest).
    import \(name)
    import ViperKit
    import ViperKitHosting

    PluginManifest.writeSourceFile(for: \(name)Plugin.self)

    """
  }

  var manifestPlugin: String { PluginScaffold.manifestPlugin(name) }

  static func manifestPlugin(_ name: String) -> String {
    """
    import PackagePlugin

    /// Makes every build of \(name)EntryPoint carry a fresh manifest: runs
    /// \(name)Manifest to write the Swift file holding the plugin's contracts
    /// in the `vivarium_manifest` section, and compiles it into the plugin.
    @main struct Manifest: BuildToolPlugin {
      func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let tool = try context.tool(named: "\(name)Manifest")
        let output = context.pluginWorkDirectoryURL.appending(path: "Manifest.swift")
        return [
          .buildCommand(
            displayName: "Writing the manifest of \(name)", executable: tool.url, arguments: [output.path],
            inputFiles: [tool.url], outputFiles: [output])
        ]
      }
    }

    """
  }

  var exportsMap: String { PluginScaffold.exportsMap }

  static var exportsMap: String {
    """
    /* Export only the plugin entry; Swift finds everything else through the
       library's own sections. */
    {
      global: vivarium_plugin_entry;
      local: *;
    };

    """
  }

  var readme: String {
    let arguments =
      "Its arguments: "
      + (pattern.placeholders.map { "`\($0)` (string, required)" }
      + ["`\(PluginScaffold.entryArgument)` (int, default 0: the list; another: that entry, pushed)"])
      .joined(separator: ", ") + "."
    return """
      # \(name)

      A Vivarium plugin with one VIPER module, `\(pattern.text)`. \(arguments)

      ```sh
      swift build                                   # .build/debug/lib\(name).so
      swift test                                    # the module's tests and the conformance checks
      vivarium check .build/debug/lib\(name).so     # every check, isolated
      vivarium render \(sampleURN) --plugins .build/debug/lib\(name).so
      ```

      `vivarium sdk` says which SDK this package builds against (`Package.swift`
      names its path) and what the host requires: the same ViperKit major, a
      minor no newer than the host's, and the same Swift compiler.

      | file | role |
      | --- | --- |
      | `\(name)Contract.swift` | the protocols between the roles, the entity and view model, and the `Contract` the host routes by |
      | `\(name)View.swift` | draws the view model as a `ViewNode` tree, forwards events; holds no state |
      | `\(name)Presenter.swift` | turns entities into the view model and decides what each event does |
      | `\(name)Interactor.swift` | owns the data; the only role that may use services |
      | `\(name)Router.swift` | navigation, by URN: a selected entry is pushed as `?\(PluginScaffold.entryArgument)=N`, as `Contract.opens` declares, and Back pops it |
      | `\(name)Factory.swift` | wires the roles; the plugin type listing the module |
      | `Sources/\(name)EntryPoint` | the plugin's entry point: the dynamic library `lib\(name).so` |
      | `Sources/\(name)Manifest`, `Plugins/Manifest` | write the plugin's manifest on every build, so the host can route to it without running it |

      Vivarium's guide, `Host/SDK/GUIDE.md` in the Vivarium checkout, covers
      slots, outputs, services, testing and checking.

      """
  }
}
