// swift-tools-version: 6.0
// ViperKitHosting: what every host of ViperKit modules needs, shared by the
// `vivarium` host and the test kit: the URN grammar, the contract and message
// rules, the conformance check catalog, and the running of modules' work and
// time. Its own package, with a dynamic library, so that the host and the
// test kit share one copy that links the one libViperKit.so.
import PackageDescription

let package = Package(
  name: "ViperKitHosting",
  products: [
    .library(name: "ViperKitHosting", type: .dynamic, targets: ["ViperKitHosting"])
  ],
  dependencies: [
    .package(path: "..")
  ],
  targets: [
    .target(
      name: "ViperKitHosting",
      dependencies: [.product(name: "ViperKit", package: "SDK")]
    )
  ]
)
