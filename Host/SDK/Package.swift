// swift-tools-version: 6.0
// ViperKit, the Vivarium plugin SDK. It is its own package so that the host,
// every plugin and every test bundle link one shared `libViperKit.so`
// (see docs/writing-a-plugin.md, "The package"). Depend on the `ViperKit` product, never on
// the target: a target dependency links a private static copy and breaks
// type identity across dlopen.
import PackageDescription

let package = Package(
  name: "ViperKit",
  products: [
    .library(name: "ViperKit", type: .dynamic, targets: ["ViperKit"])
  ],
  targets: [
    .target(name: "CViperKit"),
    .target(
      name: "ViperKit",
      dependencies: ["CViperKit"],
      swiftSettings: [
        .unsafeFlags(["-enable-library-evolution", "-no-verify-emitted-module-interface"])
      ]
    ),
  ]
)
