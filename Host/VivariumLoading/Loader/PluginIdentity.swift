import Foundation
import VivariumSupport

/// Who a plugin is, for its storage: the name its descriptor declares
/// (`plugin_name`, the plugin type's name such as `ProductSearchPlugin`), so
/// that copying or renaming a `.so` file does not hand it another plugin's
/// data. The name is declared by the plugin itself: this keeps plugins apart
/// by mistake, not by force (see docs/using-the-app.md, "The data directory").
package struct PluginIdentity: Hashable, Sendable {
  /// The declared name, which names the storage file `storage/NAME.json`.
  package let name: String
  /// The plugin file.
  package let path: String
  /// Why the plugin gets no storage, when it gets none: its name cannot be a
  /// file name.
  package let storageRefusal: String?
  /// The hosts it may reach through the host's http service.
  package let hosts: [String]

  /// The identity of the plugin at `path` declaring `name`. No two loaded
  /// plugins share a name (``PluginCatalog`` refuses them).
  package init(name: String, path: String, hosts: [String] = []) {
    self.name = name
    self.path = path
    self.hosts = hosts
    storageRefusal =
      Self.fileNameProblem(name).map { problem in
        "\(path) declares the plugin name \(String(reflecting: name)), which \(problem), so it gets no storage; name its plugin type plainly"
      }
  }

  /// The storage name used before storage was keyed by identity: the file
  /// name without `lib` and extension (`libProductSearch.so` → `ProductSearch`).
  package var legacyStorageName: String {
    var name = (PathName.lastComponent(path) as NSString).deletingPathExtension
    if name.hasPrefix("lib") { name.removeFirst(3) }
    return name
  }

  /// What keeps `name` from naming a file in `storage/`, or nil when nothing.
  static func fileNameProblem(_ name: String) -> String? {
    if name.isEmpty { return "is empty" }
    if name.utf8.count > 200 { return "is longer than 200 bytes" }
    if name.contains("/") { return "contains '/'" }
    if name.hasPrefix(".") { return "starts with '.'" }
    // Printable ASCII has no control characters: only other names are looked at.
    if !name.utf8.allSatisfy({ (0x20...0x7E).contains($0) }),
      name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    {
      return "contains control characters"
    }
    return nil
  }
}
