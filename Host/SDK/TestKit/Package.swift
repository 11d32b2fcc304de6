// swift-tools-version: 6.0
// ViperKitTestKit: a module harness, fake services and the conformance checks,
// for plugin authors' own tests and for `vivarium-check`, the child process
// `vivarium check` runs. The rules it checks against (URN grammar, contract
// and message rules) are ViperKitHosting's, shared with the host. Its own
// package so that its dynamic library links the one libViperKit.so.
import PackageDescription

let package = Package(
  name: "ViperKitTestKit",
  products: [
    .library(name: "ViperKitTestKit", type: .dynamic, targets: ["ViperKitTestKit"])
  ],
  dependencies: [
    .package(path: ".."),
    .package(path: "../Hosting"),
  ],
  targets: [
    .target(
      name: "ViperKitTestKit",
      dependencies: [
        .product(name: "ViperKit", package: "SDK"), .product(name: "ViperKitHosting", package: "Hosting"),
      ]
    )
  ]
)
