// Writes the Swift file that makes a sample plugin carry its manifest:
// `sample-manifests NAME OUTPUT.swift`. Run by the build (ManifestPlugin)
// for each sample plugin's entry target; a plugin package of its own has
// one such executable for its one plugin (`vivarium new` writes it).
import Dashboard
import Feed
import Foundation
import ItemsDetail
import ItemsList
import Login
import ProductSearch
import Profile
import ViperKit
import ViperKitHosting
import Wallet
import Weather

let plugins: [String: any ViperPlugin.Type] = [
  "Dashboard": DashboardPlugin.self, "Feed": FeedPlugin.self, "ItemsDetail": ItemsDetailPlugin.self,
  "ItemsList": ItemsListPlugin.self, "Login": LoginPlugin.self, "ProductSearch": ProductSearchPlugin.self,
  "Profile": ProfilePlugin.self, "Wallet": WalletPlugin.self, "Weather": WeatherPlugin.self,
]

func write<P: ViperPlugin>(_ plugin: P.Type, to output: String) {
  do {
    try PluginManifest.writeSourceFile(for: plugin, to: output)
  } catch {
    FileHandle.standardError.write(Data("sample-manifests: cannot write \(output): \(error)\n".utf8))
    exit(2)
  }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let plugin = plugins[arguments[1]] else {
  FileHandle.standardError.write(
    Data("usage: sample-manifests \(plugins.keys.sorted().joined(separator: "|")) OUTPUT.swift\n".utf8))
  exit(2)
}
write(plugin, to: arguments[2])
