// swift-tools-version: 6.0
// Vivarium: the host, the bundled sample plugins and the tests.
//
// ViperKit (the SDK) is its own package in Host/SDK so that every binary here
// links the one libViperKit.so. Depend on its *product* only; a dependency on
// the target would link a private static copy (see docs/writing-a-plugin.md, "The package").
import PackageDescription

let viperKit: Target.Dependency = .product(name: "ViperKit", package: "SDK")
let hosting: Target.Dependency = .product(name: "ViperKitHosting", package: "Hosting")
let testKit: Target.Dependency = .product(name: "ViperKitTestKit", package: "TestKit")

/// Every sample plugin: Plugins/NAME builds libNAME.so. Faulty and FaultyFrame
/// crash on purpose, to show that the host survives them; the demo's plugin
/// directory (Scripts/make-plugin-dir) has them only with VIVARIUM_DEMO_FAULTY=1.
let plugins = [
  "ItemsList", "ItemsDetail", "Login", "Dashboard", "ProductSearch", "Feed", "Wallet", "Profile", "Weather",
  "Faulty", "FaultyFrame",
]
/// Plugins that carry no manifest: they crash on purpose, so the host must
/// run their code to learn what they offer.
let unmanifested: Set = ["Faulty", "FaultyFrame"]
/// The business services' interfaces (Plugins/NAME), each a small package
/// its provider publishes, and the plugins that depend on each: the
/// provider and its consumers link their own copies.
let interfaces: [String: [String]] = [
  "ItemsCatalog": ["ItemsList", "ItemsDetail"],
  "FaultyInterface": ["Faulty", "FaultyFrame"],
  "WeatherInterface": ["Weather", "Dashboard"],
  "PeopleInterface": ["Profile", "Dashboard"],
  "SessionInterface": ["Login", "Dashboard"],
  "WalletInterface": ["Wallet"],
]
/// Exports only `vivarium_plugin_entry` (Plugins/exports.map).
let exportsOnlyTheEntry: [LinkerSetting] = [
  .unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Plugins/exports.map"])
]

/// The targets of a sample plugin. One that carries a manifest has its
/// code in the target NAME (Plugins/NAME) and its entry point in the target
/// NAMEEntryPoint (Plugins/NAME/Entry), which the product NAME builds and into
/// which ManifestPlugin compiles the manifest sample-manifests writes from
/// the code.
func plugin(_ name: String) -> [Target] {
  let dependencies: [Target.Dependency] =
    [viperKit] + interfaces.keys.sorted().filter { interfaces[$0]!.contains(name) }.map { .target(name: $0) }
  if unmanifested.contains(name) {
    return [
      .target(name: name, dependencies: dependencies, path: "Plugins/\(name)", linkerSettings: exportsOnlyTheEntry)
    ]
  }
  return [
    .target(name: name, dependencies: dependencies, path: "Plugins/\(name)", exclude: ["Entry"]),
    .target(
      name: name + "EntryPoint", dependencies: [.target(name: name), viperKit], path: "Plugins/\(name)/Entry",
      linkerSettings: exportsOnlyTheEntry, plugins: ["ManifestPlugin"]),
  ]
}

let package = Package(
  name: "Vivarium",
  products: [
    .executable(name: "vivarium", targets: ["vivarium"]),
    .executable(name: "vivarium-check", targets: ["vivarium-check"]),
  ] + plugins.map { .library(name: $0, type: .dynamic, targets: [unmanifested.contains($0) ? $0 : $0 + "EntryPoint"]) },
  dependencies: [
    .package(path: "Host/SDK"),
    .package(path: "Host/SDK/Hosting"),
    .package(path: "Host/SDK/TestKit"),
  ],
  targets: [
    // The host, layer by layer: a target imports only the targets it names
    // here, all of them earlier in this list. docs/architecture.md draws
    // them; ArchitectureTests holds the sources' imports and
    // docs/architecture.dot to this list.
    //
    // GNU libc calls Swift's Glibc module does not show (pipe2, closefrom).
    .target(name: "CVivariumSystem", path: "Host/CVivariumSystem"),
    // The terminal as cells: grids, their difference as bytes, keys parsed
    // from bytes, raw mode always restored. Knows nothing of modules.
    .target(name: "VivariumTerminal", dependencies: ["CVivariumSystem"], path: "Host/VivariumTerminal"),
    // What the host's layers share: files read and written safely, text
    // made safe for a terminal and view trees laid out as text, small
    // collections.
    .target(name: "VivariumSupport", dependencies: [viperKit, "VivariumTerminal"], path: "Host/VivariumSupport"),
    // The protocol between the host and a plugin process, alone: its
    // messages, their one codec (any Codable value as tagged binary) and
    // frames on a socket. Knows nothing of processes, modules or screens.
    .target(name: "VivariumWire", dependencies: [viperKit], path: "Host/VivariumWire"),
    // The web's protocols, alone, for `vivarium serve`: HTTP/1.1 request
    // heads parsed as their bytes arrive and responses built, the WebSocket
    // handshake and frames, checks of Host and Origin against DNS
    // rebinding and cross-site WebSockets, SHA-1, base64, random tokens and
    // their comparison in constant time; and the server (Server/), one
    // thread polling nonblocking sockets, asking the app on the main actor.
    // No pages, and nothing of plugins or sessions.
    .target(name: "VivariumWeb", path: "Host/VivariumWeb"),
    // Finding, checking and loading plugins: ELF and probes, the loader, the
    // registry of manifests, the route table, the host's side of plugin
    // processes, and watching for rebuilt plugins. The host links the rules
    // (ViperKitHosting), never the test kit.
    .target(
      name: "VivariumLoading", dependencies: ["VivariumSupport", "VivariumWire", "CVivariumSystem", viperKit, hosting],
      path: "Host/VivariumLoading"),
    // The plugin's side of a plugin process (`vivarium __plugin`, the
    // zygote): its server loop, which only the executable links.
    .target(
      name: "VivariumPluginSide",
      dependencies: ["VivariumLoading", "VivariumWire", "VivariumSupport", "CVivariumSystem", viperKit, hosting],
      path: "Host/VivariumPluginSide"),
    // Modules at run time: navigation, composition, services, restoration and
    // scripted sessions. Knows plugin processes only through the loading
    // layer, never the wire.
    .target(
      name: "VivariumRuntime",
      dependencies: ["VivariumLoading", "VivariumSupport", "CVivariumSystem", viperKit, hosting],
      path: "Host/VivariumRuntime"),
    // What the commands report on plugins and apps: the plugin check, the
    // whole-app check, the plugins, routes and graph reports, `vivarium new`.
    .target(
      name: "VivariumTools",
      dependencies: ["VivariumRuntime", "VivariumLoading", "VivariumSupport", viperKit, hosting],
      path: "Host/VivariumTools"),
    // The full-screen app: a session's screens laid out on a grid, focus,
    // editing, the command line; and the loop joining it to a terminal.
    .target(
      name: "VivariumApp", dependencies: ["VivariumRuntime", "VivariumSupport", "VivariumTerminal", viperKit],
      path: "Host/VivariumApp"),
    // The app served to browser tabs: the page, and one session of the
    // shared host per tab's WebSocket, on the web's server.
    .target(
      name: "VivariumServe", dependencies: ["VivariumRuntime", "VivariumWeb", "VivariumSupport", viperKit],
      path: "Host/VivariumServe"),
    .executableTarget(
      name: "vivarium",
      dependencies: [
        "VivariumApp", "VivariumTools", "VivariumRuntime", "VivariumPluginSide", "VivariumLoading", "VivariumServe",
        "VivariumWeb", "VivariumSupport", "VivariumTerminal", viperKit, hosting,
      ], path: "Host/vivarium"),
    // The conformance check runner `vivarium check` starts: the only
    // executable linking the test kit.
    .executableTarget(
      name: "vivarium-check", dependencies: ["VivariumTools", "VivariumLoading", viperKit, testKit],
      path: "Host/vivarium-check"),
    .testTarget(
      name: "VivariumTests",
      dependencies: [
        "VivariumSupport", "VivariumWire", "VivariumWeb", "VivariumServe", "VivariumLoading", "VivariumRuntime",
        "VivariumTools", "VivariumTerminal", "VivariumApp", "CVivariumSystem", viperKit, hosting, testKit,
        // The items service's interface: the sample plugins' tests fake it;
        // the wallet's event, which the events' tests publish.
        "ItemsCatalog", "WalletInterface",
      ], path: "Tests/VivariumTests",
      exclude: ["Sessions", "Fixtures"]),
    // The items domain (entity, date format, the items service's interface)
    // shared by the two items plugins; each links its own static copy.
    .target(name: "ItemsCatalog", dependencies: [viperKit], path: "Plugins/ItemsCatalog"),
    // The other services' interfaces: faulty (Faulty provides it, FaultyFrame
    // uses it), weather (Weather; the dashboard) and people (Profile; the
    // dashboard); the wallet's event (Wallet publishes and subscribes).
    .target(name: "FaultyInterface", dependencies: [viperKit], path: "Plugins/FaultyInterface"),
    .target(name: "WeatherInterface", dependencies: [viperKit], path: "Plugins/WeatherInterface"),
    .target(name: "PeopleInterface", dependencies: [viperKit], path: "Plugins/PeopleInterface"),
    .target(name: "SessionInterface", dependencies: [viperKit], path: "Plugins/SessionInterface"),
    .target(name: "WalletInterface", dependencies: [viperKit], path: "Plugins/WalletInterface"),
    // The manifests of the sample plugins (see plugin(_:)).
    .executableTarget(
      name: "sample-manifests",
      dependencies: plugins.filter { !unmanifested.contains($0) }.map { .target(name: $0) } + [viperKit, hosting],
      path: "Plugins/Manifests/SampleManifests"),
    .plugin(
      name: "ManifestPlugin", capability: .buildTool(), dependencies: ["sample-manifests"],
      path: "Plugins/Manifests/ManifestPlugin"),
  ] + plugins.flatMap(plugin)
)

// The benchmarks, release builds only Scripts/benchmark makes
// (VIVARIUM_BENCHMARK=1, in a scratch folder of its own): `swift build` and
// `swift test` never see them.
if Context.environment["VIVARIUM_BENCHMARK"] != nil {
  for (product, target) in [
    ("composition-benchmark", "CompositionBenchmark"), ("redraw-benchmark", "RedrawBenchmark"),
    ("route-benchmark", "RouteBenchmark"), ("terminal-benchmark", "TerminalBenchmark"),
    ("process-benchmark", "ProcessBenchmark"), ("services-benchmark", "ServicesBenchmark"),
    ("sessions-benchmark", "SessionsBenchmark"), ("plugins-benchmark", "PluginsBenchmark"),
    ("loading-benchmark", "LoadingBenchmark"),
  ] {
    package.products.append(.executable(name: product, targets: [target]))
    package.targets.append(
      .executableTarget(
        name: target,
        dependencies: [
          "VivariumApp", "VivariumTools", "VivariumRuntime", "VivariumLoading",
          "VivariumSupport", "VivariumTerminal", "VivariumWire", "FaultyInterface", viperKit, hosting,
        ],
        path: "Scripts/bench/\(target)"))
  }
}
