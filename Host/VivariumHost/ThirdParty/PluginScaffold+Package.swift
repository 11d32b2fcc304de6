/// The package-level files of a new plugin.
extension PluginScaffold {
  var packageManifest: String {
    """
    // swift-tools-version: 6.0
    // The \(name) plugin for Vivarium. Build it with `swift build`; the plugin is
    // .build/debug/lib\(name).so. The SDK paths come from `vivarium sdk`.
    import PackageDescription

    let package = Package(
      name: "\(name)",
      products: [
        .library(name: "\(name)", type: .dynamic, targets: ["\(name)"])
      ],
      dependencies: [
        .package(path: "\(sdkPath)"),
        .package(path: "\(sdkPath)/TestKit"),
      ],
      targets: [
        .target(
          name: "\(name)",
          dependencies: [.product(name: "ViperKit", package: "SDK")],
          // Export only the plugin entry (vivarium check: descriptor.exports).
          linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\\(Context.packageDirectory)/exports.map"])]
        ),
        .testTarget(
          name: "\(name)Tests",
          dependencies: ["\(name)", .product(name: "ViperKitTestKit", package: "TestKit")]
        ),
      ]
    )

    """
  }

  var exportsMap: String {
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
      pattern.placeholders.isEmpty
      ? "It takes no arguments."
      : "Its arguments: " + pattern.placeholders.map { "`\($0)` (string, required)" }.joined(separator: ", ") + "."
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
      | `\(name)Router.swift` | navigation, by URN |
      | `\(name)Factory.swift` | wires the roles, and the plugin entry point |

      Vivarium's guide, `Host/SDK/GUIDE.md` in the Vivarium checkout, covers
      slots, outputs, services, testing and checking.

      """
  }
}
