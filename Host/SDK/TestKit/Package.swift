// swift-tools-version: 6.0
// ViperKitTestKit: the contract rules (URN grammar, contract checks), a module
// harness and the conformance checks, for plugin authors' own tests and for
// the host's `vivarium check`. Its own package so that its dynamic library
// links the one libViperKit.so instead of a private copy.
import PackageDescription

let package = Package(
  name: "ViperKitTestKit",
  products: [
    .library(name: "ViperKitTestKit", type: .dynamic, targets: ["ViperKitTestKit"])
  ],
  dependencies: [
    .package(path: "..")
  ],
  targets: [
    .target(
      name: "ViperKitTestKit",
      dependencies: [.product(name: "ViperKit", package: "SDK")]
    )
  ]
)
